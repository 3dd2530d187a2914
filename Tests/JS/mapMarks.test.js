// The pins' initials and the room place names keep from pins and bubbles (js/mapMarks.js).
// Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initial, initials, overlaps, overlapsAny } from '../../Sources/WebApp/Public/js/mapMarks.js';

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
