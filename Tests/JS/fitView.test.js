import test from 'node:test';
import assert from 'node:assert/strict';
import { studentBounds } from '../../Sources/WebApp/Public/js/fitView.js';

const berlin = { latitude: 52.52, longitude: 13.40 };
const tokyo = { latitude: 35.68, longitude: 139.69 };
const sanFrancisco = { latitude: 37.77, longitude: -122.42 };
const saoPaulo = { latitude: -23.55, longitude: -46.63 };

test('no students: nothing to fit', () => {
  assert.equal(studentBounds([]), null);
  assert.equal(studentBounds([{ latitude: 'x', longitude: 1 }]), null);
});

test('one town: a box around it', () => {
  assert.deepEqual(studentBounds([berlin, berlin]), { south: 52.52, west: 13.40, north: 52.52, east: 13.40 });
});

test('two continents: the box holds both', () => {
  const box = studentBounds([berlin, tokyo]);
  assert.deepEqual(box, { south: 35.68, west: 13.40, north: 52.52, east: 139.69 });
});

test('across the date line the short way: Tokyo and San Francisco over the Pacific', () => {
  const box = studentBounds([tokyo, sanFrancisco]);
  assert.equal(box.west, 139.69);
  assert.ok(Math.abs(box.east - (360 - 122.42)) < 1e-9, `east ${box.east}`);
  assert.ok(box.east - box.west < 120);
});

test('a class all round the world shows the world', () => {
  const everywhere = [berlin, tokyo, sanFrancisco, saoPaulo, { latitude: -33.87, longitude: 151.21 }, { latitude: 19.08, longitude: 72.88 }];
  assert.equal(studentBounds(everywhere), 'world');
  assert.equal(studentBounds([{ latitude: -60, longitude: 0 }, { latitude: 70, longitude: 10 }, { latitude: 0, longitude: 0 }].concat([{ latitude: 89, longitude: 1 }, { latitude: -89, longitude: 2 }])), 'world');
});

test('longitudes past 180 are read as the same places', () => {
  assert.deepEqual(studentBounds([{ latitude: 10, longitude: 370 }, { latitude: 12, longitude: 20 }]), { south: 10, west: 10, north: 12, east: 20 });
});
