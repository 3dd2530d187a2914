import test from 'node:test';
import assert from 'node:assert/strict';
import { pinsAfter, locationsAfter, snapshotAfter, searchKept, folded } from '../../Sources/WebApp/Public/js/keptData.js';

const pin = (id, latitude = 1, longitude = 2) => ({ id, latitude, longitude });
const post = (objectId, extra = {}) => ({ objectId, uniqueKey: `u-${objectId}`, firstName: 'A', lastName: objectId, latitude: 1, longitude: 2, mapString: 'Here', mediaURL: '', ...extra });
const list = (query) => new URL(`http://localhost/parse/classes/StudentLocation?${query}`);

test('pins: a dropped pin is added, a moved one replaced, a deleted one gone', () => {
  const kept = { results: [pin('a')] };
  assert.deepEqual(pinsAfter(kept, { pin: pin('b') }).results.map((p) => p.id), ['a', 'b']);
  assert.deepEqual(pinsAfter(kept, { pin: pin('a', 5, 6) }).results, [pin('a', 5, 6)]);
  assert.deepEqual(pinsAfter(kept, { deleted: 'a' }).results, []);
  assert.deepEqual(kept.results, [pin('a')], 'the kept answer itself is not changed');
  assert.equal(pinsAfter(null, { pin: pin('x') }), null);
});

test('list: a post goes first on the first page, a moved one moves up, a removed one goes', () => {
  const kept = { results: [post('x'), post('y')], count: 2 };
  const url = list('limit=2&order=-updatedAt&count=1');
  const added = locationsAfter(kept, url, { location: post('z') });
  assert.deepEqual(added.results.map((l) => l.objectId), ['z', 'x'], 'the page keeps its length');
  assert.equal(added.count, 3);
  const moved = locationsAfter(kept, url, { location: post('y', { mapString: 'There' }) });
  assert.deepEqual(moved.results.map((l) => l.objectId), ['y', 'x']);
  assert.equal(moved.results[0].mapString, 'There');
  assert.equal(moved.count, 2);
  const removed = locationsAfter(kept, url, { deleted: 'x' });
  assert.deepEqual(removed.results.map((l) => l.objectId), ['y']);
  assert.equal(removed.count, 1);
});

test('list: later pages and other queries only lose a post; the own-post query takes it', () => {
  const kept = { results: [post('x')] };
  assert.deepEqual(locationsAfter(kept, list('limit=100&skip=100'), { location: post('z') }).results.map((l) => l.objectId), ['x']);
  const own = list(`limit=1&where=${encodeURIComponent(JSON.stringify({ uniqueKey: 'u-z' }))}`);
  assert.deepEqual(locationsAfter({ results: [] }, own, { location: post('z') }).results.map((l) => l.objectId), ['z']);
  const other = list(`limit=1&where=${encodeURIComponent(JSON.stringify({ uniqueKey: 'u-q' }))}`);
  assert.deepEqual(locationsAfter({ results: [] }, other, { location: post('z') }).results, []);
});

test('snapshot: columns follow a post, a move and a removal', () => {
  const names = ['firstName', 'lastName', 'latitude', 'longitude', 'mapString', 'mediaURL', 'objectId', 'uniqueKey'];
  const columns = Object.fromEntries(names.map((name) => [name, [post('x')[name]]]));
  const kept = { version: 7, count: 1, columns };
  const added = snapshotAfter(kept, { location: post('z', { latitude: '3.5' }) });
  assert.equal(added.count, 2);
  assert.deepEqual(added.columns.objectId, ['z', 'x']);
  assert.equal(added.columns.latitude[0], 3.5);
  assert.equal(added.version, 7);
  const moved = snapshotAfter(added, { location: post('x', { longitude: 9 }) });
  assert.deepEqual(moved.columns.objectId, ['x', 'z']);
  assert.equal(moved.columns.longitude[0], 9);
  const removed = snapshotAfter(moved, { deleted: 'z' });
  assert.deepEqual(removed.columns.objectId, ['x']);
  assert.equal(removed.count, 1);
  for (const name of names) assert.equal(removed.columns[name].length, 1);
});

test('search over the kept list: every word, in the name or the place, folded', () => {
  const students = [
    post('1', { firstName: 'María', lastName: 'López', mapString: 'São Paulo, Brazil' }),
    post('2', { firstName: 'Ｍaria', lastName: 'Ng', mapString: 'Lagos, Nigeria' }),
    post('3', { firstName: 'Ken', lastName: 'Ito', mapString: 'Tokyo' }),
  ];
  assert.deepEqual(searchKept(students, 'maria').map((s) => s.objectId), ['1', '2']);
  assert.deepEqual(searchKept(students, 'maria  sao').map((s) => s.objectId), ['1']);
  assert.deepEqual(searchKept(students, 'TOKYO').map((s) => s.objectId), ['3']);
  assert.deepEqual(searchKept(students, '   '), []);
  assert.equal(folded('  Ｍaría\tLópez '), 'maria lopez');
});
