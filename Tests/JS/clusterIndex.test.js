// The map's clustering (js/clusterIndex.js), without a browser: which points draw as one
// marker at a zoom, and that nothing is lost or counted twice. Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterIndex, mercatorX, mercatorY, longitudeOf, latitudeOf, tooCloseToTell, spanInPixels, TOGETHER_PIXELS } from '../../Sources/WebApp/Public/js/clusterIndex.js';

const point = (latitude, longitude) => ({ x: mercatorX(longitude), y: mercatorY(latitude) });

test('the projection goes both ways, and stops at the poles of Web Mercator', () => {
  for (const [latitude, longitude] of [[0, 0], [51.5, -0.13], [-33.9, 151.2], [64.1, -21.9]]) {
    assert.ok(Math.abs(latitudeOf(mercatorY(latitude)) - latitude) < 1e-9);
    assert.ok(Math.abs(longitudeOf(mercatorX(longitude)) - longitude) < 1e-9);
  }
  assert.equal(mercatorX(-180), 0);
  assert.equal(mercatorX(180), 1);
  assert.equal(mercatorY(90), mercatorY(89.9999));
  assert.ok(mercatorY(90) >= 0 && mercatorY(-90) <= 1);
});

test('near points make one cluster at a far zoom and stay apart close up; every point counted once', () => {
  const index = new ClusterIndex(60);
  const london = [point(51.5074, -0.1278), point(51.5155, -0.0922), point(51.4975, -0.1357)];
  const sydney = point(-33.8688, 151.2093);
  index.add([...london, sydney]);
  const world = index.level(2);
  assert.equal(world.size, 2, 'London and Sydney');
  assert.deepEqual([...world.count].sort(), [1, 3]);
  const street = index.level(16);
  assert.equal(street.size, 4, 'every point on its own');
  for (const level of [world, street]) {
    assert.equal(level.count.reduce((sum, count) => sum + count, 0), 4);
    assert.ok([...level.clusterOf].every((c) => c >= 0 && c < level.size));
  }
  const londonCluster = world.clusterOf[0];
  assert.deepEqual(index.membersOf(world, londonCluster), london);
  // A cluster's point is its members' mean, inside their bounds.
  assert.ok(world.x[londonCluster] >= world.minX[londonCluster] && world.x[londonCluster] <= world.maxX[londonCluster]);
});

test('a removed point leaves every level, and the index says it changed', () => {
  const index = new ClusterIndex(60);
  const points = Array.from({ length: 200 }, (_, i) => point(10 + i * 0.001, 20));
  index.add(points);
  const before = index.version;
  assert.equal(index.level(3).count.reduce((a, b) => a + b, 0), 200);
  for (const gone of points.slice(0, 150)) index.remove(gone);
  assert.ok(index.version > before);
  assert.equal(index.size, 50);
  const level = index.level(3);
  assert.equal(level.count.reduce((a, b) => a + b, 0), 50, 'holes are not counted, compacted or not');
  index.clear();
  assert.equal(index.size, 0);
  assert.equal(index.level(3).size, 0);
});

test('students a few hundred metres apart are one place at a town\'s zoom and apart close up', () => {
  // Five students in Lyon, about 600 m from each other.
  const town = [[45.760, 4.835], [45.760, 4.843], [45.760, 4.851], [45.766, 4.835], [45.766, 4.851]].map(([lat, lng]) => point(lat, lng));
  const index = new ClusterIndex(60, (zoom) => (zoom >= 12 ? 20 : 60));
  index.add(town);
  for (const zoom of [5, 9]) {
    const level = index.level(zoom);
    assert.equal(level.size, 1, `one cluster at zoom ${zoom}`);
    assert.ok(tooCloseToTell(level, 0, zoom), `too close to tell apart at zoom ${zoom}`);
    assert.ok(spanInPixels(level, 0, zoom) <= TOGETHER_PIXELS);
  }
  // At the last zoom the radius is a pin's: every student stands alone.
  assert.equal(index.level(12).size, 5);
  // Two towns 50 km apart are one bubble at zoom 5 but clearly two places: it zooms in.
  const two = new ClusterIndex(60);
  two.add([point(45.76, 4.835), point(45.76, 5.48)]);
  const level = two.level(5);
  assert.equal(level.size, 1);
  assert.ok(!tooCloseToTell(level, 0, 5));
});

test('a radius per zoom changes only the zoom it names', () => {
  const points = Array.from({ length: 50 }, (_, i) => point(10, 20 + i * 0.00015));
  const plain = new ClusterIndex(60);
  const lastSmall = new ClusterIndex(60, (zoom) => (zoom >= 18 ? 20 : 60));
  plain.add(points);
  lastSmall.add(points);
  assert.equal(lastSmall.level(10).size, plain.level(10).size);
  assert.ok(lastSmall.level(18).size > plain.level(18).size);
  assert.equal(lastSmall.level(18).count.reduce((a, b) => a + b, 0), 50);
});
