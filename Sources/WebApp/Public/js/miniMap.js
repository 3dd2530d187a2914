// A small map on each row of the moderation queue: where the post would be placed, drawn
// from the basemap's country outlines the app already ships (/world.geojson) as one SVG path,
// made once per page and shared by every row (`<use>`), with a dot. Nothing is asked of any
// tile service, and 30 or 300 rows cost one path. Its text alternative is the place's name.

const SVG = 'http://www.w3.org/2000/svg';
const WORLD_ID = 'mini-map-world';
/** The window each row shows: degrees of longitude and latitude around the post. */
const SPAN_X = 60;
const SPAN_Y = 40;

/** The outlines of a GeoJSON FeatureCollection (Polygons, MultiPolygons) as one SVG path in
 *  an equirectangular frame 360 × 180 (x = longitude + 180, y = 90 − latitude), coordinates
 *  rounded to a tenth of a degree. */
export function worldPath(geojson) {
  const parts = [];
  const features = geojson && Array.isArray(geojson.features) ? geojson.features : [];
  for (const feature of features) {
    const geometry = feature && feature.geometry;
    if (!geometry) continue;
    const polygons = geometry.type === 'MultiPolygon' ? geometry.coordinates : geometry.type === 'Polygon' ? [geometry.coordinates] : [];
    for (const polygon of polygons) {
      for (const ring of polygon) {
        let previous = null;
        const points = [];
        for (const [longitude, latitude] of ring) {
          const point = `${round(longitude + 180)} ${round(90 - latitude)}`;
          if (point !== previous) points.push(point);
          previous = point;
        }
        if (points.length > 2) parts.push(`M${points.join('L')}Z`);
      }
    }
  }
  return parts.join('');
}

function round(value) {
  return Math.round(value * 10) / 10;
}

/** The window (viewBox) around a point, kept inside the world. */
export function windowAround(latitude, longitude) {
  const x = Math.min(360 - SPAN_X, Math.max(0, longitude + 180 - SPAN_X / 2));
  const y = Math.min(180 - SPAN_Y, Math.max(0, 90 - latitude - SPAN_Y / 2));
  return `${round(x)} ${round(y)} ${SPAN_X} ${SPAN_Y}`;
}

let world = null;

/** Puts the world's outline in the page once (hidden), for every row's `<use>`. */
function ensureWorld() {
  if (world) return world;
  world = fetch('/world.geojson')
    .then((response) => (response.ok ? response.json() : null))
    .then((geojson) => {
      if (!geojson || document.getElementById(WORLD_ID)) return;
      const holder = document.createElementNS(SVG, 'svg');
      holder.setAttribute('class', 'mini-map-defs');
      holder.setAttribute('aria-hidden', 'true');
      const defs = document.createElementNS(SVG, 'defs');
      const path = document.createElementNS(SVG, 'path');
      path.id = WORLD_ID;
      path.setAttribute('d', worldPath(geojson));
      defs.append(path);
      holder.append(defs);
      document.body.append(holder);
    })
    .catch(() => { world = null; });
  return world;
}

/** A small map of where a post is, named `label` (its place), or null when it has no place. */
export function miniMap(latitude, longitude, label) {
  const lat = Number(latitude);
  const lon = Number(longitude);
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  ensureWorld();
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'mini-map');
  svg.setAttribute('viewBox', windowAround(lat, lon));
  svg.setAttribute('preserveAspectRatio', 'xMidYMid slice');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('focusable', 'false');
  const title = document.createElementNS(SVG, 'title');
  title.textContent = label;
  const land = document.createElementNS(SVG, 'use');
  land.setAttribute('href', `#${WORLD_ID}`);
  land.setAttribute('class', 'mini-map-land');
  const dot = document.createElementNS(SVG, 'circle');
  dot.setAttribute('class', 'mini-map-dot');
  dot.setAttribute('cx', String(round(lon + 180)));
  dot.setAttribute('cy', String(round(90 - lat)));
  dot.setAttribute('r', '2.8');
  svg.append(title, land, dot);
  return svg;
}
