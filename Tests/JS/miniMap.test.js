// The moderation queue's small maps (js/miniMap.js): the basemap's outlines as one SVG path,
// and each row's window around its post, kept inside the world. Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { worldPath, windowAround } from '../../Sources/WebApp/Public/js/miniMap.js';

const PUBLIC = join(dirname(fileURLToPath(import.meta.url)), '../../Sources/WebApp/Public');

test('worldPath draws each ring once, equirectangular, dropping points that round together', () => {
  const square = { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10.01, 0], [10, 10], [0, 10], [0, 0]]] };
  const tiny = { type: 'Polygon', coordinates: [[[1, 1], [1.01, 1.01], [1, 1]]] };
  const path = worldPath({ features: [{ geometry: square }, { geometry: tiny }, { geometry: null }] });
  assert.equal(path, 'M180 90L190 90L190 80L180 80L180 90Z');
});

test('the bundled world becomes one path of every country, smaller than its GeoJSON', () => {
  const text = readFileSync(join(PUBLIC, 'world.geojson'), 'utf8');
  const path = worldPath(JSON.parse(text));
  assert.ok(path.split('M').length > 177);
  assert.ok(path.length < text.length * 0.75);
  assert.match(path, /^M[\d. L]+Z/);
});

test('a window is centred on its post, and slides to stay inside the world at its edges', () => {
  assert.equal(windowAround(0, 0), '150 70 60 40');
  assert.equal(windowAround(6.45, 3.39), '153.4 63.6 60 40');
  assert.equal(windowAround(89, 179), '300 0 60 40');
  assert.equal(windowAround(-89, -179), '0 140 60 40');
});
