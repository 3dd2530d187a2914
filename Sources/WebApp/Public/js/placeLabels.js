// Place names on the offline basemap, from places.json (built from the bundled GeoNames
// gazetteer): region names from zoom 5, then cities, the largest first, more of them as the
// map zooms in, never overlapping. Drawn as text in a pane of their own, hidden from screen
// readers (the pins carry the names that matter to them).
import { fetchPlaces } from './api.js';

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
    map.on('moveend', this.draw, this);
    this.draw();
  },

  onRemove(map) {
    map.off('moveend', this.draw, this);
    this.group.remove();
  },

  async draw() {
    const map = this._map;
    if (!map) return;
    const zoom = map.getZoom();
    if (zoom < MIN_ZOOM) {
      this.show([]);
      return;
    }
    const data = await loadPlaces();
    if (!data || this._map !== map || map.getZoom() !== zoom) return;
    const bounds = map.getBounds();
    const size = map.getSize();
    const taken = [];
    const labels = [];
    const place = (name, lat, lng, kind) => {
      // The copy of the world in view (the map scrolls past ±180°).
      const west = bounds.getWest();
      const shifted = lng + 360 * Math.ceil((west - lng) / 360);
      if (lat < bounds.getSouth() || lat > bounds.getNorth() || shifted > bounds.getEast()) return;
      const point = map.latLngToContainerPoint([lat, shifted]);
      const width = name.length * (kind === 'region' ? 7.5 : 7) + 12;
      const box = { left: point.x - width / 2, right: point.x + width / 2, top: point.y - 12, bottom: point.y + 12 };
      if (box.left < 0 || box.right > size.x || box.top < 0 || box.bottom > size.y) return;
      if (taken.some((other) => box.left < other.right && box.right > other.left && box.top < other.bottom && box.bottom > other.top)) return;
      taken.push(box);
      labels.push({ name, kind, at: map.latLngToLayerPoint([lat, shifted]) });
    };
    const minimum = minimumPopulation(zoom);
    for (const [name, lat, lng, population] of data.places) {
      if (population < minimum || labels.length >= MAX_LABELS) break;
      place(name, lat, lng, 'city');
    }
    if (zoom >= REGION_ZOOMS[0] && zoom <= REGION_ZOOMS[1]) {
      for (const [name, lat, lng] of data.regions) {
        if (labels.length >= MAX_LABELS) break;
        place(name, lat, lng, 'region');
      }
    }
    this.show(labels);
  },

  show(labels) {
    const nodes = labels.map(({ name, kind, at }) => {
      const node = window.L.DomUtil.create('span', `place-label place-${kind}`);
      node.textContent = name;
      window.L.DomUtil.setPosition(node, at);
      return node;
    });
    this.group.replaceChildren(...nodes);
    const container = this._map && this._map.getContainer();
    if (container) container.dataset.placeLabels = String(labels.length);
  },
};
