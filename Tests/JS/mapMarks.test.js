// The pins' initials and the room place names keep from pins and bubbles (js/mapMarks.js).
// Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initial, initials, overlaps, overlapsAny, placeName, labelWidth } from '../../Sources/WebApp/Public/js/mapMarks.js';

test('initials: the first name\'s and the last name\'s first letter, capitalised', () => {
  assert.equal(initials('Ada', 'Lovelace'), 'AL');
  assert.equal(initials('élodie', 'de la Tour'), 'ÉD');
  assert.equal(initials('  grace ', ' hopper'), 'GH');
  assert.equal(initials('Ünal', 'Ölçer'), 'ÜÖ');
});

test('initials: one name gives one, none gives none', () => {
  assert.equal(initials('Plato', ''), 'P');
  assert.equal(initials('', 'Turing'), 'T');
  assert.equal(initials('', ''), '');
  assert.equal(initials(undefined, null), '');
  assert.equal(initials('🙂', '!!!'), '', 'no letter, no initial');
});

test('initials: a whole character of any script, never half of one', () => {
  // A letter with a combining accent (e + U+0301) is one character.
  assert.equal(initial('e\u0301mile'), 'E\u0301');
  assert.equal(initials('李', '小龙'), '李小');
  assert.equal(initials('अनीता', 'शर्मा'), 'अश');
  // Leading punctuation, quotes and invisible marks are skipped.
  assert.equal(initials('"Zoë"', '(Kim)'), 'ZK');
  assert.equal(initial('\u200F\u2067Omar'), 'O');
  // A capital of two letters would read as two initials: kept as written.
  assert.equal(initial('ßa'), 'ß');
});

test('initials: Arabic letters stay two initials (they would join into a word)', () => {
  const letters = initials('سارة', 'أحمد');
  assert.equal(letters, 'س\u200Cأ');
  assert.equal(Array.from(letters.replace('\u200C', '')).length, 2);
  assert.equal(initials('Sara', 'أحمد'), 'S\u200Cأ');
  assert.equal(initials('Sara', 'Ahmed'), 'SA', 'no joiner between Latin letters');
});

test('boxes overlap when they share area, not when they only touch', () => {
  const a = { left: 0, top: 0, right: 10, bottom: 10 };
  assert.ok(overlaps(a, { left: 5, top: 5, right: 15, bottom: 15 }));
  assert.ok(overlaps(a, { left: 2, top: 2, right: 4, bottom: 4 }), 'one inside the other');
  assert.ok(!overlaps(a, { left: 10, top: 0, right: 20, bottom: 10 }), 'side by side');
  assert.ok(!overlaps(a, { left: 0, top: 11, right: 10, bottom: 20 }));
  assert.ok(!overlaps(a, { left: 9, top: 0, right: 20, bottom: 10 }, 2), 'within the slack');
  assert.ok(overlapsAny(a, [{ left: 50, top: 50, right: 60, bottom: 60 }, { left: 8, top: 8, right: 9, bottom: 9 }]));
  assert.ok(!overlapsAny(a, []));
});

test('placeName: a city in the reader\'s language where places.json names it, else the gazetteer\'s name', () => {
  const places = {
    places: [['Vienna', 48.2, 16.37, 1691468], ['Munich', 48.14, 11.58, 1505005], ['Cairo', 30.06, 31.25, 7734614]],
    names: { de: { 0: 'Wien', 2: 'Kairo' }, 'zh-Hans': { 0: '维也纳', 2: '开罗' } },
  };
  assert.equal(placeName(places, 0, 'de'), 'Wien');
  assert.equal(placeName(places, 1, 'de'), 'Munich', 'a city German does not name its own way keeps its name');
  assert.equal(placeName(places, 2, 'zh-Hans'), '开罗');
  assert.equal(placeName(places, 2, 'en'), 'Cairo');
  assert.equal(placeName(places, 0, 'fr'), 'Vienna', 'a language with no names at all');
  assert.equal(placeName({ places: places.places }, 0, 'de'), 'Vienna', 'a places.json from before the names');
});

test('labelWidth: ideographs and hangul take twice a letter\'s room, other scripts one', () => {
  assert.equal(labelWidth('Wien', 'city'), 4 * 7 + 12);
  assert.equal(labelWidth('开罗', 'city'), labelWidth('Kair', 'city'));
  assert.equal(labelWidth('서울', 'city'), labelWidth('Seou', 'city'));
  assert.equal(labelWidth('القاهرة', 'city'), 7 * 7 + 12);
  assert.equal(labelWidth('BAVARIA', 'region'), 7 * 7.5 + 12);
});
