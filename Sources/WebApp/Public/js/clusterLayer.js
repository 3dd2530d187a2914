// Draws a ClusterIndex on a Leaflet map: only the clusters and pins in view (plus a margin)
// exist as layers, and a move redraws only what changed. A click on a cluster zooms to it;
// where its students are too close to tell apart at the zoom shown (their pins would cover
// each other), or the map is at its last zoom, it names them in one list (groupOpened), or
// without one fans them out around it ("spiderfies"), so every student can be reached.
// After every drawing the map hears `markersdrawn` (the place names make room).
import { ClusterIndex, mercatorX, mercatorY, longitudeOf, latitudeOf, tooCloseToTell } from './clusterIndex.js';

const L = window.L;
/** The view is extended by this share of its size on each side, so a short pan shows pins
 *  already drawn. */
const VIEW_MARGIN = 0.3;
/** Fanned-out pins: up to this many sit on a circle, more on a spiral. */
const CIRCLE_MAX = 9;
const PIN_SPACING = 34;
/** How much further out each turn of the spiral is (pixels; a pin is 36 tall). */
const SPIRAL_GROWTH = 40;

export class ClusterLayer {
  /**
   * @param {L.Map} map
   * @param {object} options
   * @param {number} options.radius  pixels within which points draw as one cluster
   * @param {number} [options.lastRadius]  the same at the map's last zoom (pins further apart
   *   than this stand on their own there)
   * @param {(point: object) => L.Marker} options.pin  the marker of one point (kept by the caller)
   * @param {(point: object, latlng: L.LatLng) => L.Marker} options.fannedPin  a point's marker drawn away from its place
   * @param {(count: number) => L.Icon} options.clusterIcon
   * @param {(points: object[], latlng: L.LatLng) => void} [options.groupOpened]  a cluster of
   *   points too close to tell apart was clicked: show who they are (else they fan out)
   */
  constructor(map, options) {
    this.map = map;
    this.options = options;
    const lastRadius = options.lastRadius || options.radius;
    this.index = new ClusterIndex(options.radius, (zoom) => (zoom >= map.getMaxZoom() ? lastRadius : options.radius));
    this.group = L.featureGroup().addTo(map);
    this.fan = L.featureGroup().addTo(map);
    /** What is drawn: key → layer (a point's key is the point itself). */
    this.drawn = new Map();
    this.fanned = null;
    this.frame = 0;
    map.on('moveend', () => this.draw());
    map.on('zoomstart', () => this.fold());
    map.on('click', () => this.fold());
    this.group.on('click', (event) => {
      if (event.layer.cluster) this.clusterClicked(event.layer.cluster);
    });
  }

  /** Replaces every point. */
  setPoints(points) {
    this.fold();
    this.index.clear();
    this.index.add(points);
    this.draw();
  }

  add(point) {
    this.index.add([point]);
    this.redrawSoon();
  }

  remove(point) {
    this.index.remove(point);
    const layer = this.drawn.get(point);
    if (layer) {
      this.group.removeLayer(layer);
      this.drawn.delete(point);
    }
    this.redrawSoon();
  }

  get size() {
    return this.index.size;
  }

  /** One redraw for a burst of live changes. */
  redrawSoon() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.fold();
      this.draw();
    });
  }

  /** Draws what the current view shows. */
  draw() {
    const map = this.map;
    if (!map._loaded) return; // no view yet (setView not called): nothing to draw
    const zoom = map.getZoom();
    const level = this.index.level(zoom);
    const points = this.index.points;
    const bounds = map.getBounds().pad(VIEW_MARGIN);
    const west = mercatorX(Math.max(-180, bounds.getWest())), east = mercatorX(Math.min(180, bounds.getEast()));
    const north = mercatorY(bounds.getNorth()), south = mercatorY(bounds.getSouth());
    const wanted = new Map();
    for (let c = 0; c < level.size; c++) {
      const x = level.x[c], y = level.y[c];
      if (x < west || x > east || y < north || y > south) continue;
      if (level.count[c] === 1) {
        const point = points[level.member[c]];
        wanted.set(point, this.drawn.get(point) || this.options.pin(point));
      } else {
        const key = `${this.index.version}/${zoom}/${c}`;
        wanted.set(key, this.drawn.get(key) || this.clusterMarker(level, c, zoom));
      }
    }
    for (const [key, layer] of this.drawn) if (!wanted.has(key)) this.group.removeLayer(layer);
    for (const [key, layer] of wanted) if (!this.drawn.has(key)) this.group.addLayer(layer);
    this.drawn = wanted;
    map.fire('markersdrawn');
  }

  clusterMarker(level, c, zoom) {
    const marker = L.marker([latitudeOf(level.y[c]), longitudeOf(level.x[c])], {
      icon: this.options.clusterIcon(level.count[c]),
      keyboard: true,
    });
    marker.cluster = { level, c, zoom, version: this.index.version };
    return marker;
  }

  /** Draws the clusters' icons again (their names in another language). */
  relabel() {
    for (const layer of this.drawn.values()) {
      if (!layer.cluster) continue;
      const { level, c } = layer.cluster;
      layer.setIcon(this.options.clusterIcon(level.count[c]));
    }
  }

  /** Zooms to a cluster's points; names them in a list (or fans them out) when they are too
   *  close to tell apart at this zoom or zooming cannot part them. */
  clusterClicked(cluster) {
    const { level, c, version, zoom } = cluster;
    if (version !== this.index.version) return;
    const bounds = L.latLngBounds(
      [latitudeOf(level.maxY[c]), longitudeOf(level.minX[c])],
      [latitudeOf(level.minY[c]), longitudeOf(level.maxX[c])],
    );
    const together = level.minX[c] === level.maxX[c] && level.minY[c] === level.maxY[c];
    const map = this.map;
    const last = map.getZoom() >= map.getMaxZoom();
    if (this.options.groupOpened && (together || last || tooCloseToTell(level, c, zoom))) {
      // Students one pin would cover: a list that names them, not a fan of pins.
      this.fold();
      this.options.groupOpened(this.index.membersOf(level, c), L.latLng(latitudeOf(level.y[c]), longitudeOf(level.x[c])));
    } else if (together || map.getZoom() >= map.getMaxZoom()) {
      this.spread(cluster);
    } else {
      map.fitBounds(bounds, { padding: [40, 40], maxZoom: map.getMaxZoom() });
    }
  }

  /** Shows one point: zooms until it stands alone (or fans out its cluster at the last zoom),
   *  then calls back with its marker. */
  reveal(point, then) {
    const map = this.map;
    const latlng = L.latLng(point.latitude, point.longitude);
    const index = this.index.points.indexOf(point);
    if (index < 0) return;
    // The first zoom (from the one shown) at which the point stands alone, or the last.
    let zoom = Math.max(map.getZoom(), map.getMinZoom());
    while (zoom < map.getMaxZoom()) {
      const level = this.index.level(zoom);
      if (level.count[level.clusterOf[index]] === 1) break;
      zoom += 1;
    }
    zoom = Math.min(zoom, map.getMaxZoom());
    const finish = () => {
      this.draw();
      const level = this.index.level(map.getZoom());
      const c = level.clusterOf[index];
      if (level.count[c] === 1) {
        then(this.drawn.get(point));
      } else {
        this.spread({ level, c, zoom: map.getZoom(), version: this.index.version });
        then(this.fanned && this.fanned.markers.get(point));
      }
    };
    if (map.getZoom() === zoom && map.getBounds().contains(latlng)) {
      finish();
    } else {
      map.once('moveend', finish);
      map.setView(latlng, zoom, { animate: false });
    }
  }

  /** Fans a cluster's points out around it, each joined to the spot by a short line. */
  spread(cluster) {
    this.fold();
    const { level, c } = cluster;
    const members = this.index.membersOf(level, c);
    const map = this.map;
    const centre = map.latLngToLayerPoint([latitudeOf(level.y[c]), longitudeOf(level.x[c])]);
    const places = members.length <= CIRCLE_MAX ? circle(members.length) : spiral(members.length);
    const markers = new Map();
    members.forEach((point, i) => {
      const latlng = map.layerPointToLatLng(centre.add(places[i]));
      L.polyline([map.layerPointToLatLng(centre), latlng], { className: 'spider-leg', interactive: false }).addTo(this.fan);
      const marker = this.options.fannedPin(point, latlng);
      markers.set(point, marker);
      this.fan.addLayer(marker);
    });
    const drawnCluster = Array.from(this.drawn.values()).find((layer) => layer.cluster && layer.cluster.c === c && layer.cluster.level === level);
    if (drawnCluster) drawnCluster.setOpacity(0.3);
    this.fanned = { markers, drawnCluster };
    map.fire('markersdrawn');
  }

  /** Folds fanned-out pins back into their cluster. */
  fold() {
    if (!this.fanned) return;
    this.fan.clearLayers();
    if (this.fanned.drawnCluster) this.fanned.drawnCluster.setOpacity(1);
    this.fanned = null;
    this.map.fire('markersdrawn');
  }
}

/** Offsets (pixels) of n pins on a circle around a spot. */
function circle(n) {
  const radius = Math.max(30, (PIN_SPACING * n) / (2 * Math.PI));
  return Array.from({ length: n }, (_, i) => {
    const angle = (2 * Math.PI * i) / n - Math.PI / 2;
    return L.point(radius * Math.cos(angle), radius * Math.sin(angle));
  });
}

/** Offsets of n pins on a spiral out from a spot, PIN_SPACING apart along it. */
function spiral(n) {
  const offsets = [];
  let radius = 30, angle = 0;
  for (let i = 0; i < n; i++) {
    offsets.push(L.point(radius * Math.cos(angle), radius * Math.sin(angle)));
    angle += PIN_SPACING / radius;
    radius += (SPIRAL_GROWTH / (2 * Math.PI)) * (PIN_SPACING / radius);
  }
  return offsets;
}
