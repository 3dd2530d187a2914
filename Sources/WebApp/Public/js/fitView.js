// The view that shows every student of a class: the smallest box around their points, the
// short way round the date line (a class in Tokyo and San Francisco is seen across the
// Pacific, not across Europe). Pure, so `node --test` checks it without a browser.

/** Spans past these show the world instead: a class across it has nothing to fit. */
const WORLD_LONGITUDE_SPAN = 240;
const WORLD_LATITUDE_SPAN = 150;

/**
 * `{ south, west, north, east }` around `points` (objects with `latitude` and `longitude`;
 * `east` may pass 180 when the box crosses the date line), `'world'` when they span it, or
 * null when there are none.
 */
export function studentBounds(points) {
  let south = Infinity, north = -Infinity, count = 0;
  // Which of the 360 one-degree columns hold a student: the widest empty run is the gap the
  // box leaves out.
  const occupied = new Uint8Array(360);
  for (const point of points) {
    const latitude = Number(point.latitude), longitude = Number(point.longitude);
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) continue;
    count += 1;
    if (latitude < south) south = latitude;
    if (latitude > north) north = latitude;
    occupied[column(longitude)] = 1;
  }
  if (count === 0) return null;
  let bestStart = -1, bestLength = 0;
  for (let start = 0; start < 360; start += 1) {
    if (occupied[start] || !occupied[(start + 359) % 360]) continue;  // runs start after a full column
    let length = 0;
    while (length < 360 && !occupied[(start + length) % 360]) length += 1;
    if (length > bestLength) { bestLength = length; bestStart = start; }
  }
  // Longitudes measured from the end of the gap, so the box is one piece.
  const from = bestStart < 0 ? -180 : ((bestStart + bestLength) % 360) - 180;
  let west = Infinity, east = -Infinity;
  for (const point of points) {
    const latitude = Number(point.latitude), longitude = Number(point.longitude);
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) continue;
    const shifted = wrap(longitude) < from ? wrap(longitude) + 360 : wrap(longitude);
    if (shifted < west) west = shifted;
    if (shifted > east) east = shifted;
  }
  if (east - west > WORLD_LONGITUDE_SPAN || north - south > WORLD_LATITUDE_SPAN) return 'world';
  if (west >= 180) { west -= 360; east -= 360; }
  return { south, west, north, east };
}

function wrap(longitude) {
  if (longitude >= -180 && longitude < 180) return longitude;
  return ((((longitude + 180) % 360) + 360) % 360) - 180;
}

function column(longitude) {
  return Math.min(359, Math.floor(wrap(longitude) + 180));
}
