// The map tab: an offline vector basemap (Natural Earth countries), an optional
// OSM-style tile layer, and one clustered marker per student location.
import { el, fullName, safeURL } from './ui.js';
import { placeLabels } from './placeLabels.js';

const L = window.L;

/** Zoom limits: past zoom 12 the offline basemap's outlines and city names show nothing
 *  new; street tiles do. */
const BASEMAP_MAX_ZOOM = 12;
const TILES_MAX_ZOOM = 18;

export function pinIcon(extraClass = '') {
  return L.divIcon({
    className: `student-pin ${extraClass}`.trim(),
    html: '<span class="pin-head"></span>',
    iconSize: [28, 36],
    iconAnchor: [14, 36],
    popupAnchor: [0, -32],
  });
}

/** Adds the world basemap (and tiles when configured) to a Leaflet map. */
export function addBaseLayers(map, config, world) {
  if (config.tileURL) {
    L.tileLayer(config.tileURL, {
      maxZoom: TILES_MAX_ZOOM,
      attribution: config.tileAttribution || '&copy; OpenStreetMap contributors',
    }).addTo(map);
  } else if (world) {
    L.geoJSON(world, {
      renderer: L.canvas({ padding: 0.5 }),
      interactive: false,
      style: { color: '#b9c7b0', weight: 0.8, fillColor: '#eef2e6', fillOpacity: 1 },
    }).addTo(map);
    placeLabels().addTo(map);
    map.attributionControl.addAttribution('Basemap: Natural Earth; place names: GeoNames');
  }
}

export function mapOptions(config) {
  return {
    maxZoom: config.tileURL ? TILES_MAX_ZOOM : BASEMAP_MAX_ZOOM,
    minZoom: 1,
    zoomSnap: 0.5,
    worldCopyJump: true,
    zoomControl: true,
    keyboard: true,
    maxBounds: [[-88, -540], [88, 540]],
    maxBoundsViscosity: 0.7,
  };
}

/** Popup body: the whole card is a link (new tab, no opener) when the link is http(s). */
export function popupContent(location) {
  const href = safeURL(location.mediaURL);
  const name = el('strong', { class: 'popup-name', text: fullName(location) });
  const place = location.mapString ? el('span', { class: 'popup-place', text: location.mapString }) : null;
  if (href) {
    return el('a', { class: 'popup-card', href, target: '_blank', rel: 'noopener noreferrer' }, [
      name,
      el('span', { class: 'popup-link', text: href }),
      place,
    ]);
  }
  return el('div', { class: 'popup-card no-link' }, [
    name,
    el('span', { class: 'popup-link muted', text: location.mediaURL ? 'Link not shown: not a web address' : 'No link shared' }),
    place,
  ]);
}

export class StudentMap {
  constructor(container, config) {
    this.map = L.map(container, mapOptions(config));
    this.map.setView([25, 10], initialZoom(container));
    this.clusters = L.markerClusterGroup({
      showCoverageOnHover: false,
      spiderfyOnMaxZoom: true,
      maxClusterRadius: 70,
      iconCreateFunction: clusterIcon,
    });
    this.icon = pinIcon();
    this.ownIcon = pinIcon('own');
    // Markers share their defaults through the prototype, so building 100,000 stays cheap.
    this.Marker = L.Marker.extend({ options: { icon: this.icon, keyboard: true }, onAdd: labelledOnAdd });
    this.markersByObjectId = new Map();
    this.markerCount = 0;
    this.clusters.on('click', (event) => {
      this.openPopup(event.layer);
      // Opened with Enter: the link gets the focus, or Tab would walk every other pin first.
      const key = event.originalEvent && event.originalEvent.detail === 0;
      const card = key && this.popup.getElement() && this.popup.getElement().querySelector('.popup-card');
      if (card) card.focus();
    });
    const showZoom = () => { container.dataset.zoom = String(this.map.getZoom()); };
    this.map.on('zoomend', showZoom);
    showZoom();
    this.map.addLayer(this.clusters);
    clickMarkersWithKeys(container);
    this.popup = L.popup({ maxWidth: 280, minWidth: 180, autoPanPadding: [24, 24] });
  }

  setBasemap(config, world) {
    addBaseLayers(this.map, config, world);
    requestAnimationFrame(() => performance.mark('onthemap:basemap-drawn'));
  }

  /** Markers for the locations not seen yet (by objectId) in this load. */
  buildMarkers(locations, ownKey, seen) {
    const markers = [];
    for (const location of locations) {
      if (location.objectId) {
        if (seen.has(location.objectId)) continue;
        seen.add(location.objectId);
      }
      const lat = Number(location.latitude);
      const lng = Number(location.longitude);
      if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) continue;
      const own = ownKey && location.uniqueKey === ownKey;
      const title = fullName(location);
      const marker = new this.Marker(L.latLng(lat, lng), own
        ? { title, alt: title, icon: this.ownIcon, zIndexOffset: 1000 }
        : { title, alt: title });
      marker.location = location;
      markers.push(marker);
      if (location.objectId) this.markersByObjectId.set(location.objectId, marker);
    }
    return markers;
  }

  /** Replaces every marker at once (a refresh keeps the old ones until the new are in).
   *  Resolves once all markers are clustered and drawn. */
  setLocations(locations, ownKey = null) {
    this.markersByObjectId = new Map();
    const markers = this.buildMarkers(locations, ownKey, new Set());
    performance.mark('onthemap:markers-built');
    this.map.closePopup();
    this.clusters.clearLayers();
    this.clusters.addLayers(markers);
    performance.mark('onthemap:markers-clustered');
    this.markerCount = markers.length;
    return afterPaint(markers.length);
  }

  /** Starts a load that takes locations page by page as they arrive (when none are shown):
   *  their markers are built meanwhile and clustered in one addLayers call at the end
   *  (every call also walks the whole cluster tree). */
  beginLoad(ownKey = null) {
    this.map.closePopup();
    this.clusters.clearLayers();
    this.markersByObjectId = new Map();
    this.loadSeen = new Set();
    this.loadOwnKey = ownKey;
    this.pending = [];
    this.markerCount = 0;
  }

  addBatch(locations) {
    for (const marker of this.buildMarkers(locations, this.loadOwnKey, this.loadSeen)) this.pending.push(marker);
  }

  /** Clusters the markers built so far; resolves with the count once they are drawn. */
  finishLoad() {
    performance.mark('onthemap:markers-built');
    this.clusters.addLayers(this.pending);
    this.markerCount = this.pending.length;
    this.pending = [];
    this.loadSeen = null;
    performance.mark('onthemap:markers-clustered');
    return afterPaint(this.markerCount);
  }

  /** Live hook: adds a location's marker, or moves it, with a short highlight. */
  upsertLocation(location, ownKey = null) {
    this.removeLocation(location.objectId);
    const [marker] = this.buildMarkers([location], ownKey, new Set());
    if (!marker) return;
    this.clusters.addLayer(marker);
    this.markerCount += 1;
    // A ring outside the cluster layer, so it shows even where the pin is clustered.
    const ring = L.circleMarker(marker.getLatLng(), { radius: 16, className: 'live-pulse', interactive: false });
    ring.addTo(this.map);
    setTimeout(() => ring.remove(), 2000);
  }

  /** Live hook: removes a location's marker; whether there was one. */
  removeLocation(objectId) {
    const marker = this.markersByObjectId.get(objectId);
    if (!marker) return false;
    if (this.popup.isOpen() && this.popup.getLatLng() && this.popup.getLatLng().equals(marker.getLatLng())) this.map.closePopup();
    this.clusters.removeLayer(marker);
    this.markersByObjectId.delete(objectId);
    this.markerCount -= 1;
    return true;
  }

  openPopup(marker) {
    if (!marker || !marker.location) return;
    this.popup.setLatLng(marker.getLatLng()).setContent(popupContent(marker.location)).openOn(this.map);
  }

  /** Zooms to one location's marker and opens its popup. */
  reveal(objectId) {
    const marker = this.markersByObjectId.get(objectId);
    if (!marker) return;
    this.clusters.zoomToShowLayer(marker, () => this.openPopup(marker));
  }

  invalidateSize() {
    this.map.invalidateSize();
  }
}

/** Enter or Space on a focused marker clicks it, as on a button (Leaflet itself only opens
 *  a popup bound to the marker). */
export function clickMarkersWithKeys(container) {
  container.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    if (!event.target.classList.contains('leaflet-marker-icon')) return;
    event.preventDefault();
    event.target.click();
  });
}

/** Leaflet gives a focusable marker a title but no role: screen readers would hear
 *  "group". Named buttons say who is there (the name is set when a marker is drawn). */
function labelledOnAdd(map) {
  L.Marker.prototype.onAdd.call(this, map);
  nameMarker(this.getElement(), this.options.title);
}

export function nameMarker(element, name) {
  if (!element) return;
  element.setAttribute('role', 'button');
  element.setAttribute('aria-label', name);
}

/** A cluster's icon, named like a marker (made on first use: without Leaflet, importing
 *  this module must not fail). */
let ClusterIcon = null;
function clusterIconClass() {
  if (!ClusterIcon) {
    ClusterIcon = L.DivIcon.extend({
      createIcon(oldIcon) {
        const element = L.DivIcon.prototype.createIcon.call(this, oldIcon);
        nameMarker(element, this.options.label);
        return element;
      },
    });
  }
  return ClusterIcon;
}

function afterPaint(value) {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(value))));
}

/** The zoom at which the world just fills the map (in steps of ½). */
function initialZoom(container) {
  const side = Math.max(container.clientWidth, container.clientHeight, 256);
  return Math.min(3, Math.max(1, Math.floor(Math.log2(side / 256) * 2) / 2));
}

function clusterIcon(cluster) {
  const count = cluster.getChildCount();
  const size = count < 10 ? 'small' : count < 100 ? 'medium' : count < 1000 ? 'large' : 'huge';
  const label = count < 10000 ? String(count) : `${Math.round(count / 1000)}k`;
  const dimension = { small: 34, medium: 40, large: 46, huge: 54 }[size];
  const ClusterIcon = clusterIconClass();
  return new ClusterIcon({
    html: `<span aria-hidden="true">${label}</span>`,
    className: `cluster cluster-${size}`,
    iconSize: [dimension, dimension],
    label: `${count.toLocaleString()} students here; zoom in`,
  });
}
