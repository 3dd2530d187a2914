// Place names on the offline basemap, from places.json (built from the bundled GeoNames
// gazetteer): region names from zoom 5, then cities, the largest first, more of them as the
// map zooms in, never overlapping, and never under a pin or a cluster's bubble: a name that a
// marker would cover is left out while it would be (leaving it out, rather than moving it,
// keeps every other name where it was at every zoom). Drawn as text in a pane of their own,
// hidden from screen readers (the pins carry the names that matter to them).
import { fetchPlaces } from './api.js';
import { overlaps, overlapsAny, placeName, labelWidth } from './mapMarks.js';
import { language, onLanguageChange } from './i18n.js';

/** The smallest population labelled at each zoom (below MIN_ZOOM nothing is). */
const MIN_ZOOM = 4;
function minimumPopulation(zoom) {
  if (zoom >= 9) return 0;
  if (zoom >= 8) return 40000;
  if (zoom >= 7) return 100000;
  if (zoom >= 6) return 250000;
  if (zoom >= 5) return 600000;
  return 2000000;
}
const REGION_ZOOMS = [5, 7];
const MAX_LABELS = 80;

let placesPromise = null;
/** The label data, downloaded once (and kept by the service worker for offline use). */
function loadPlaces() {
  if (!placesPromise) placesPromise = fetchPlaces();
  return placesPromise;
}

let PlaceLabels = null;

/** The labels layer for a map (the class is made on first use: without Leaflet, importing
 *  this module must not fail). */
export function placeLabels() {
  if (!PlaceLabels) PlaceLabels = window.L.Layer.extend(placeLabelsLayer);
  return new PlaceLabels();
}

const placeLabelsLayer = {
  onAdd(map) {
    if (!map.getPane('labels')) {
      const pane = map.createPane('labels');
      pane.style.zIndex = '450';
      pane.style.pointerEvents = 'none';
      pane.setAttribute('aria-hidden', 'true');
    }
    this.pane = map.getPane('labels');
    this.group = window.L.DomUtil.create('div', 'place-labels leaflet-zoom-hide', this.pane);
    this.drawn = 0;
    map.on('moveend markersdrawn', this.draw, this);
    // Cities some languages name their own way (Wien, 开罗): named again in the new language.
    this.stopFollowingLanguage = onLanguageChange(() => this.draw());
    this.draw();
  },

  onRemove(map) {
    map.off('moveend markersdrawn', this.draw, this);
    this.stopFollowingLanguage();
    this.group.remove();
  },

  async draw() {
    const map = this._map;
    if (!map) return;
    // A move draws the markers and then these: the last call of a burst draws.
    const ticket = ++this.drawn;
    const zoom = map.getZoom();
    if (zoom < MIN_ZOOM) {
      this.show([]);
      return;
    }
    const data = await loadPlaces();
    if (!data || this._map !== map || map.getZoom() !== zoom || ticket !== this.drawn) return;
    const bounds = map.getBounds();
    const size = map.getSize();
    const markers = markerBoxes(map);
    const origin = map.getContainer().getBoundingClientRect();
    const inContainer = markers.map((box) => ({
      left: box.left - origin.left, right: box.right - origin.left, top: box.top - origin.top, bottom: box.bottom - origin.top,
    }));
    const taken = [];
    const labels = [];
    const place = (name, lat, lng, kind) => {
      // The copy of the world in view (the map scrolls past ±180°).
      const west = bounds.getWest();
      const shifted = lng + 360 * Math.ceil((west - lng) / 360);
      if (lat < bounds.getSouth() || lat > bounds.getNorth() || shifted > bounds.getEast()) return;
      const point = map.latLngToContainerPoint([lat, shifted]);
      const width = labelWidth(name, kind);
      const box = { left: point.x - width / 2, right: point.x + width / 2, top: point.y - 12, bottom: point.y + 12 };
      if (box.left < 0 || box.right > size.x || box.top < 0 || box.bottom > size.y) return;
      if (taken.some((other) => overlaps(box, other)) || overlapsAny(box, inContainer)) return;
      taken.push(box);
      labels.push({ name, kind, at: map.latLngToLayerPoint([lat, shifted]) });
    };
    const minimum = minimumPopulation(zoom);
    const reader = language();
    for (let index = 0; index < data.places.length; index++) {
      const [, lat, lng, population] = data.places[index];
      if (population < minimum || labels.length >= MAX_LABELS) break;
      place(placeName(data, index, reader), lat, lng, 'city');
    }
    if (zoom >= REGION_ZOOMS[0] && zoom <= REGION_ZOOMS[1]) {
      for (const [name, lat, lng] of data.regions) {
        if (labels.length >= MAX_LABELS) break;
        place(name, lat, lng, 'region');
      }
    }
    this.show(labels, markers, zoom);
  },

  /** Puts the labels on the map, then leaves out any whose text as drawn (wider than guessed,
   *  in another script) reaches under a marker (`markers`: their boxes on screen). */
  show(labels, markers = [], zoom = null) {
    const nodes = labels.map(({ name, kind, at }) => {
      const node = window.L.DomUtil.create('span', `place-label place-${kind}`);
      node.textContent = name;
      // An Arabic name reads right to left in the map's left-to-right pane.
      node.dir = 'auto';
      window.L.DomUtil.setPosition(node, at);
      return node;
    });
    this.group.replaceChildren(...nodes);
    let shown = nodes.length;
    if (markers.length) {
      for (const node of nodes) {
        if (overlapsAny(node.getBoundingClientRect(), markers)) {
          node.remove();
          shown -= 1;
        }
      }
    }
    const container = this._map && this._map.getContainer();
    if (container) {
      container.dataset.placeLabels = String(shown);
      // The zoom they were placed for (tests wait for the names of the zoom shown).
      container.dataset.placeLabelsZoom = zoom === null ? '' : String(zoom);
    }
  },
};

/** The boxes on screen (client pixels) of the markers drawn on `map`: pins, clusters' bubbles,
 *  fanned-out pins. */
function markerBoxes(map) {
  const pane = map.getPane('markerPane');
  if (!pane) return [];
  const boxes = [];
  for (const icon of pane.children) {
    const box = icon.getBoundingClientRect();
    if (box.width > 0 && box.height > 0) boxes.push(box);
  }
  return boxes;
}
