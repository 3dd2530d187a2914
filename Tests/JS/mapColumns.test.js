// The map's binary snapshot layout (js/mapColumns.js), without a browser: what the reader
// makes of an answer, what the kept copy becomes after an edit, and what it refuses.
// The server's side is checked against the JSON layout in MapColumnsBinaryTests.swift.
// Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMapColumns, writeMapColumns, TextColumn, NO_ZONE, MAP_COLUMNS } from '../../Sources/WebApp/Public/js/mapColumns.js';
import { snapshotAfter } from '../../Sources/WebApp/Public/js/keptData.js';

const TEXTS = ['firstName', 'lastName', 'mapString', 'mediaURL', 'objectId', 'uniqueKey'];

/** Rows as records, read back from a body read by readMapColumns. */
function rows(body) {
  return Array.from({ length: body.count }, (_, row) =>
    Object.fromEntries(MAP_COLUMNS.map((name) => [name, body.columns[name].at(row)])));
}

const students = [
  { firstName: 'Ada', lastName: 'Lovelace', latitude: 51.5072, longitude: -0.1276, mapString: 'London', mediaURL: 'https://example.com/ada', objectId: 'a1', uniqueKey: 'k-ada', timeZone: 0 },
  // A byte order mark first, a character beyond the BMP (two UTF-16 units), right-to-left text.
  { firstName: '\uFEFFZoë', lastName: '🦊 Fox', latitude: 0.1 + 0.2, longitude: 179.99999999999997, mapString: 'القاهرة', mediaURL: '', objectId: 'b2', uniqueKey: 'k-zoe', timeZone: NO_ZONE },
  // Empty texts, a NUL, the extremes of the map.
  { firstName: '', lastName: 'a\u0000b', latitude: -90, longitude: -180, mapString: '', mediaURL: 'http://x.test/?q=ü', objectId: 'c3', uniqueKey: 'k', timeZone: 1 },
];

function body(list = students) {
  const columns = Object.fromEntries(MAP_COLUMNS.map((name) => [name, list.map((s) => s[name])]));
  return { columns, count: list.length, version: 42, teachers: [2], timeZones: ['Europe/London', 'Antarctica/Troll'] };
}

test('what is written is read back exactly: numbers to the bit, texts of any script', () => {
  const read = readMapColumns(writeMapColumns(body()));
  assert.equal(read.count, 3);
  assert.equal(read.version, 42);
  assert.deepEqual(read.teachers, [2]);
  assert.deepEqual(read.timeZones, ['Europe/London', 'Antarctica/Troll']);
  assert.ok(read.columns.latitude instanceof Float64Array);
  assert.ok(read.columns.timeZone instanceof Uint16Array);
  assert.ok(read.columns.firstName instanceof TextColumn);
  assert.deepEqual(rows(read), students);
  assert.equal(read.columns.objectId.at(3), undefined);
  assert.equal(read.columns.objectId.at(-1), undefined);
});

test('an empty class reads as no rows', () => {
  const read = readMapColumns(writeMapColumns(body([])));
  assert.equal(read.count, 0);
  for (const name of MAP_COLUMNS) assert.equal(read.columns[name].length, 0);
});

test('every column starts on a multiple of 8 bytes, so typed arrays view it in place', () => {
  const buffer = writeMapColumns(body());
  const read = readMapColumns(buffer);
  for (const name of ['latitude', 'longitude', 'timeZone']) {
    assert.equal(read.columns[name].buffer, buffer, `${name} is a view, not a copy`);
    assert.equal(read.columns[name].byteOffset % 8, 0);
  }
});

test("a text column finds a student's own rows: whole texts only, empty rows before them skipped", () => {
  const list = ['', '', 'k-ada', 'xk-ada', 'k-ada', 'k-ad', '', 'k-ada'].map((uniqueKey, i) => ({ ...students[0], objectId: `o${i}`, uniqueKey }));
  const read = readMapColumns(writeMapColumns(body(list)));
  assert.deepEqual(read.columns.uniqueKey.rowsOf('k-ada'), [2, 4, 7]);
  assert.deepEqual(read.columns.uniqueKey.rowsOf('k-ad'), [5]);
  assert.deepEqual(read.columns.uniqueKey.rowsOf('ada'), []);
  assert.deepEqual(read.columns.uniqueKey.rowsOf(''), []);
});

test('the kept copy follows an edit: a post put first, one removed, the teachers kept on their rows', () => {
  const kept = readMapColumns(writeMapColumns(body()));
  const moved = { ...students[0], latitude: 10, longitude: 20, mapString: 'Elsewhere' };
  delete moved.timeZone;
  const edited = readMapColumns(writeMapColumns(snapshotAfter(kept, { location: moved })));
  assert.deepEqual(rows(edited).map((r) => r.objectId), ['a1', 'b2', 'c3']);
  assert.equal(edited.columns.mapString.at(0), 'Elsewhere');
  assert.equal(edited.columns.latitude.at(0), 10);
  assert.equal(edited.columns.timeZone.at(0), NO_ZONE, 'a zone is not guessed for a row put in by hand');
  assert.deepEqual(edited.teachers, [2]);
  const removed = readMapColumns(writeMapColumns(snapshotAfter(edited, { deleted: 'b2' })));
  assert.deepEqual(rows(removed).map((r) => r.objectId), ['a1', 'c3']);
  assert.deepEqual(removed.teachers, [1], "the teacher's row moved up one");
  assert.equal(removed.columns.lastName.at(1), 'a\u0000b');
  const gone = snapshotAfter(removed, { deleted: 'c3' });
  assert.deepEqual(gone.teachers, [], "the teacher's post went");
});

/** The bytes of a valid answer, changed by `change(bytes, view, header)`. */
function broken(change) {
  const buffer = writeMapColumns(body());
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + view.getUint32(8, true))));
  return change(bytes, view, header) || buffer;
}

/** The same bytes with another header (its length kept, padded with spaces). */
function withHeader(bytes, view, header) {
  const text = new TextEncoder().encode(JSON.stringify(header));
  const length = view.getUint32(8, true);
  assert.ok(text.length <= length, 'the test header fits');
  bytes.fill(0x20, 12, 12 + length);
  bytes.set(text, 12);
}

test('anything but a whole answer of this layout is refused, not misread', () => {
  const refusals = {
    'not a map layout': [new ArrayBuffer(4), new TextEncoder().encode('{"columns":{}}').buffer, broken((bytes) => { bytes[0] = 0x58; })],
    'a layout this app cannot read': [broken((_, view) => view.setUint32(4, 2, true))],
    'a header outside the answer': [broken((_, view) => view.setUint32(8, 1 << 30, true))],
    'an unexpected header': [broken((bytes, view, header) => withHeader(bytes, view, { ...header, timeZones: 0 }))],
    'a column outside the answer': [
      broken((bytes, view) => bytes.buffer.slice(0, bytes.length - 64)),
      broken((bytes, view, header) => withHeader(bytes, view, { ...header, columns: { ...header.columns, latitude: { ...header.columns.latitude, offset: header.columns.latitude.offset + 4 } } })),
    ],
    "lastName's lengths do not add up": [broken((bytes, view, header) => view.setUint16(header.columns.lastName.lengths, 99, true))],
    'no firstName': [broken((bytes, view, header) => withHeader(bytes, view, { ...header, columns: { ...header.columns, firstName: undefined } }))],
  };
  for (const [why, answers] of Object.entries(refusals)) {
    for (const answer of answers) assert.throws(() => readMapColumns(answer), (error) => error.message.includes(why), why);
  }
  assert.throws(() => readMapColumns(broken((bytes, view, header) => {
    // Not UTF-8 where a text should be.
    bytes[header.columns.firstName.offset] = 0xff;
  })));
});
