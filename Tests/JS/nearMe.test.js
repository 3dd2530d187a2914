// js/nearMe.js: great-circle distances, the nearest classmates in one pass, and distances
// shown no finer than the class shows where people are.
// Run: node --test Tests/JS
import test from 'node:test';
import assert from 'node:assert/strict';
import { distanceKm, nearest, shownDistance, formatDistance } from '../../Sources/WebApp/Public/js/nearMe.js';

const berlin = { latitude: 52.52, longitude: 13.405 };
const potsdam = { latitude: 52.3906, longitude: 13.0645 };
const tokyo = { latitude: 35.6895, longitude: 139.6917 };
const paris = { latitude: 48.8566, longitude: 2.3522 };

test('haversine: Berlin to Paris and to Tokyo, along the globe', () => {
  assert.ok(Math.abs(distanceKm(berlin.latitude, berlin.longitude, paris.latitude, paris.longitude) - 878) < 3);
  assert.ok(Math.abs(distanceKm(berlin.latitude, berlin.longitude, tokyo.latitude, tokyo.longitude) - 8918) < 10);
  assert.equal(distanceKm(10, 20, 10, 20), 0);
  // Across the date line the short way.
  assert.ok(distanceKm(0, 179.5, 0, -179.5) < 112);
});

test('the nearest first, the own pin left out, no more than asked', () => {
  const me = { ...berlin, own: true, name: 'me' };
  const points = [{ ...tokyo, name: 'tokyo' }, me, { ...paris, name: 'paris' }, { ...potsdam, name: 'potsdam' }, { latitude: 'x', longitude: 1 }];
  const found = nearest(points, me, { limit: 2, skip: (point) => point.own });
  assert.deepEqual(found.map(({ point }) => point.name), ['potsdam', 'paris']);
  assert.ok(found[0].km < found[1].km);
  assert.deepEqual(nearest(points, null), []);
  assert.deepEqual(nearest(points, me, { limit: 0 }), []);
});

test('one pass over 100,000 classmates picks the same as sorting them all, fast', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const points = Array.from({ length: 100000 }, (_, index) => ({ latitude: random() * 140 - 70, longitude: random() * 360 - 180, index }));
  const started = performance.now();
  const found = nearest(points, berlin, { limit: 50 });
  const took = performance.now() - started;
  const sorted = points.map((point) => ({ point, km: distanceKm(berlin.latitude, berlin.longitude, point.latitude, point.longitude) }))
    .sort((a, b) => a.km - b.km).slice(0, 50);
  assert.deepEqual(found.map(({ point }) => point.index), sorted.map(({ point }) => point.index));
  assert.ok(took < 200, `${took} ms`);
});

test('a town class says "same town" for the same point and rounds to 5 or 10 km, never finer', () => {
  assert.deepEqual(shownDistance(0, 'city'), { same: true });
  const near = shownDistance(23.4, 'city');
  assert.equal(near.value, 25);
  assert.equal(near.approximate, true);
  assert.equal(shownDistance(1.2, 'city').value, 5, 'neighbouring towns read one step, not 0 km');
  assert.equal(shownDistance(877.6, 'city').value, 880);
  for (const km of [1.5, 7.3, 42.42, 99.9, 512.3, 8918.2]) {
    assert.equal(shownDistance(km, 'city').value % 5, 0, String(km));
  }
});

test('regions and countries round coarser still; an exact class to a tenth of a km nearby', () => {
  assert.equal(shownDistance(120, 'region').value, 100);
  assert.equal(shownDistance(20, 'region').value, 50);
  assert.equal(shownDistance(878, 'country').value, 900);
  assert.deepEqual(shownDistance(0.5, 'country'), { same: true });
  assert.equal(shownDistance(3.46, 'exact').value, 3.5);
  assert.equal(shownDistance(3.46, 'exact').approximate, false);
  assert.equal(shownDistance(42.4, 'exact').value, 42);
  assert.equal(shownDistance(0.01, 'exact').same, true);
  assert.equal(shownDistance(23.4, undefined).value, 25, 'an unknown precision reads as a town\'s');
  assert.equal(shownDistance(16.1, 'city', 'mile').value, 10);
});

test('formatted with Intl in the reader\'s language', () => {
  assert.equal(formatDistance(shownDistance(23.4, 'city'), 'en'), '25 km');
  assert.equal(formatDistance(shownDistance(3.46, 'exact'), 'de'), '3,5 km');
  assert.equal(formatDistance(shownDistance(1234, 'city'), 'en'), '1,230 km');
  assert.match(formatDistance(shownDistance(23.4, 'city'), 'ar'), /كم/);
});
