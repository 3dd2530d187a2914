// Typed text inside the app's sentences (js/bidi.js): isolates, where they are needed, parts
// put where a message's placeholders are, and our own words as HTML in their own direction;
// and no other module isolates by hand. Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  FSI, PDI, hasRightToLeft, isolated, isolatedBeside, withParts, ownDirectionHTML,
} from '../../Sources/WebApp/Public/js/bidi.js';

const PUBLIC = join(dirname(fileURLToPath(import.meta.url)), '../../Sources/WebApp/Public');

test('isolated sets text apart with first-strong isolate … pop directional isolate', () => {
  assert.equal(FSI, '\u2068');
  assert.equal(PDI, '\u2069');
  assert.equal(isolated('Biology 101'), '\u2068Biology 101\u2069');
  assert.equal(isolated('أحمد'), '\u2068أحمد\u2069');
  assert.equal(isolated(''), '\u2068\u2069');
});

test('right-to-left letters are found in Hebrew, Arabic and their presentation forms, not elsewhere', () => {
  for (const text of ['שלום', 'القاهرة', 'Ali علي', '\uFB50', '\uFEFC', 'ދިވެހި']) assert.ok(hasRightToLeft(text), text);
  for (const text of ['Müller', '北京', 'Ελλάδα', 'हिन्दी', '', '123', 'ana@school.example']) assert.ok(!hasRightToLeft(text), text);
});

test('isolatedBeside isolates on a right-to-left page, or right-to-left text; else leaves text as it is', () => {
  assert.equal(isolatedBeside('Geografía 1', false), 'Geografía 1');
  assert.equal(isolatedBeside('Geografía 1', true), '\u2068Geografía 1\u2069');
  assert.equal(isolatedBeside('جغرافيا', false), '\u2068جغرافيا\u2069');
  assert.equal(isolatedBeside('/c/geo-1', true), '\u2068/c/geo-1\u2069');
  assert.equal(isolatedBeside(42, false), '42');
});

test('withParts puts each part where its placeholder is, and leaves out empty texts', () => {
  const part = { element: 'bdi' };
  const say = (params) => `${params.name} was approved by ${params.who}.`;
  assert.deepEqual(withParts(say, { who: 'Ana' }, { name: part }), [part, ' was approved by Ana.']);
  const other = { element: 'time' };
  assert.deepEqual(withParts((params) => `${params.b}:${params.a}`, {}, { a: part, b: other }), [other, ':', part]);
  // The message sees every other parameter as given; the parts' own values are not used.
  assert.deepEqual(withParts((params) => `${params.count} (${params.reasons})`, { count: 3, reasons: 'x' }, { reasons: part }),
    ['3 (', part, ')']);
  assert.deepEqual(withParts(() => 'no placeholders', {}, { name: part }), ['no placeholders']);
});

test('our own words as HTML: escaped, in a span of their own direction', () => {
  assert.equal(ownDirectionHTML('Map data © Natural Earth'), '<span dir="auto">Map data © Natural Earth</span>');
  assert.equal(ownDirectionHTML('<b> & "x"'), '<span dir="auto">&lt;b&gt; &amp; &quot;x&quot;</span>');
});

test('no other module of the web app isolates text by hand', () => {
  const folder = join(PUBLIC, 'js');
  const byHand = /\\u2068|\\u2069|[\u2068\u2069]|<span dir="auto">/;
  const found = readdirSync(folder).filter((name) => name.endsWith('.js') && name !== 'bidi.js')
    .filter((name) => byHand.test(readFileSync(join(folder, name), 'utf8')));
  assert.deepEqual(found, []);
});

test('index.html names bidi.js, so the service worker keeps it for offline', () => {
  assert.match(readFileSync(join(PUBLIC, 'index.html'), 'utf8'), /<link rel="modulepreload" href="\/js\/bidi\.js">/);
});
