// The map tab: an offline vector basemap (Natural Earth countries), an optional
// OSM-style tile layer, and the students' pins, clustered (clusterLayer.js) where they crowd.
import { el, fullName, safeURL } from './ui.js';
import { placeLabels } from './placeLabels.js';
import { ClusterLayer } from './clusterLayer.js';
import { studentBounds } from './fitView.js';
import { mercatorX, mercatorY } from './clusterIndex.js';
import { t, language, onLanguageChange } from './i18n.js';
import { ownDirectionHTML } from './bidi.js';
import { isOwn } from './approval.js';
import { youBadge, ownActions } from './myPin.js';
import { localTimeElement } from './nearMeView.js';
import { initials } from './mapMarks.js';

const L = window.L;

/** Zoom limits: past zoom 12 the offline basemap's outlines and city names show nothing
 *  new; street tiles do. */
const BASEMAP_MAX_ZOOM = 12;
const TILES_MAX_ZOOM = 18;

/** A pin; `letters` (a student's initials) are written on its head, in their own direction
 *  and hidden from screen readers (the pin is named with the whole name). */
export function pinIcon(extraClass = '', letters = '') {
  const written = letters
    ? `<span class="pin-initials" dir="auto" aria-hidden="true">${letters.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)}</span>`
    : '';
  return L.divIcon({
    className: `student-pin ${letters ? 'lettered' : ''} ${extraClass}`.replace(/\s+/g, ' ').trim(),
    html: `<span class="pin-head"></span>${written}`,
    iconSize: [28, 36],
    iconAnchor: [14, 36],
    popupAnchor: [0, -32],
  });
}

/** Adds the world basemap (and tiles when configured) to a Leaflet map. */
export function addBaseLayers(map, config, world) {
  if (config.tileURL) {
    L.tileLayer(config.tileURL, { maxZoom: TILES_MAX_ZOOM }).addTo(map);
    // The host's own words (HTML) as they are; ours in the page's language, in their own
    // direction (the map's corner is left to right; Arabic's words around the sources' Latin
    // names read right to left).
    attribute(map, () => config.tileAttribution || ownDirectionHTML(t('map.attribution.tiles')));
  } else if (world) {
    L.geoJSON(world, {
      renderer: L.canvas({ padding: 0.5 }),
      interactive: false,
      style: { color: '#b9c7b0', weight: 0.8, fillColor: '#eef2e6', fillOpacity: 1 },
    }).addTo(map);
    placeLabels().addTo(map);
    attribute(map, () => ownDirectionHTML(t('map.attribution.basemap', { naturalEarth: 'Natural Earth', geoNames: 'GeoNames' })));
  }
}

/** An attribution (HTML) in the map's corner, said again whenever the language changes. */
function attribute(map, text) {
  let shown = text();
  map.attributionControl.addAttribution(shown);
  onLanguageChange(() => {
    const next = text();
    if (next === shown) return;
    map.attributionControl.removeAttribution(shown).addAttribution(next);
    shown = next;
  });
}

/** Leaflet's own words on a map (its zoom buttons' names, its credit's title) in the page's
 *  language, now and after every change of it. */
export function translateLeaflet(map) {
  const apply = () => {
    for (const [css, key] of [['.leaflet-control-zoom-in', 'map.zoomIn'], ['.leaflet-control-zoom-out', 'map.zoomOut']]) {
      const button = map.getContainer().querySelector(css);
      if (button) {
        button.title = t(key);
        button.setAttribute('aria-label', t(key));
      }
    }
    if (map.attributionControl) {
      const title = t('map.leafletTitle').replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]);
      map.attributionControl.setPrefix(`<a href="https://leafletjs.com" title="${title}">Leaflet</a>`);
    }
  };
  apply();
  onLanguageChange(apply);
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

/** Popup body: the whole card is a link (new tab, no opener) when the link is http(s). The
 *  signed-in student's own says "You" and carries Edit and "Remove me from the map" (myPin.js). */
export function popupContent(location, { readOnly = false } = {}) {
  // Read-only (the present view, an embed): no "You", no Edit.
  const own = !readOnly && isOwn(location);
  const card = popupCard(location, own);
  if (!own || !location.objectId) return card;
  return el('div', { class: 'popup-own' }, [card, ownActions(location)]);
}

function popupCard(location, own) {
  const href = safeURL(location.mediaURL);
  const fullname = el('strong', { class: 'popup-name', dir: 'auto', text: fullName(location) });
  const name = own ? el('span', { class: 'popup-top' }, [fullname, youBadge()]) : fullname;
  const place = location.mapString ? el('span', { class: 'popup-place', dir: 'auto', text: location.mapString }) : null;
  // The time where the student is ("21:00 there"), from their place's time zone.
  const time = localTimeElement(location, 'local-time popup-time');
  if (href) {
    return el('a', { class: 'popup-card', href, target: '_blank', rel: 'noopener noreferrer' }, [
      name,
      el('span', { class: 'popup-link', dir: 'ltr', text: href }),
      place,
      time,
    ]);
  }
  return el('div', { class: 'popup-card no-link' }, [
    name,
    el('span', { class: 'popup-link muted', text: location.mediaURL ? t('map.popup.linkNotShown') : t('map.popup.noLink') }),
    place,
    time,
  ]);
}

/** A pin's name: the student's, and for the signed-in student's own pin "(you)" too, or for
 *  a teacher's "(teacher)". */
function pinTitle(location, own, teacher = false) {
  if (own) return t('mine.pinTitle', { name: fullName(location) });
  return teacher ? t('map.teacherPinTitle', { name: fullName(location) }) : fullName(location);
}

function isPlace(latitude, longitude) {
  return Number.isFinite(latitude) && Number.isFinite(longitude) && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
}

/** The rows of a snapshot's text column (an array, or mapColumns.js's TextColumn) that hold
 *  `value`. */
function rowsOf(column, value) {
  if (typeof column.rowsOf === 'function') return column.rowsOf(value);
  const rows = [];
  for (let row = 0; row < column.length; row++) if (column[row] === value) rows.push(row);
  return rows;
}

/** One student on the map: where (also projected, for clustering), and who: a location object,
 *  or a row of the snapshot's columns read into one only when its pin is drawn; `zones` is the
 *  snapshot's table of time zone names its `timeZone` column indexes. */
class MapPoint {
  constructor(latitude, longitude, own, location, columns, row, zones = null) {
    this.latitude = latitude;
    this.longitude = longitude;
    this.x = mercatorX(longitude);
    this.y = mercatorY(latitude);
    this.own = own;
    /** Posted by one of the class's teachers (the snapshot says so). */
    this.teacher = false;
    this.marker = null;
    this.record = location;
    this.columns = columns;
    this.row = row;
    this.zones = zones;
  }

  /** The IANA time zone where the student is shown (the snapshot's), or null. */
  get timeZone() {
    if (this.record) return typeof this.record.timeZone === 'string' ? this.record.timeZone : null;
    const index = this.columns.timeZone ? this.columns.timeZone.at(this.row) : null;
    return this.zones && Number.isInteger(index) && typeof this.zones[index] === 'string' ? this.zones[index] : null;
  }

  get location() {
    if (!this.record) {
      const c = this.columns, row = this.row;
      const timeZone = this.timeZone;
      this.record = {
        firstName: c.firstName.at(row), lastName: c.lastName.at(row), latitude: this.latitude, longitude: this.longitude,
        mapString: c.mapString.at(row), mediaURL: c.mediaURL.at(row), objectId: c.objectId.at(row), uniqueKey: c.uniqueKey.at(row),
        timeZone,
      };
    }
    return this.record;
  }

  get objectId() {
    return this.record ? this.record.objectId : this.columns.objectId.at(this.row);
  }
}

/** Pixels within which students draw as one cluster; at the last zoom only pins that would
 *  cover each other's initials are one (further apart they stand as pins of their own). */
const CLUSTER_RADIUS = 60;
const LAST_ZOOM_RADIUS = 20;
/** A group's list shows this many names at once, the rest a moment later. */
const FIRST_NAMES = 50;
/** A class in one town opens on the town, not on its streets. */
const FIT_MAX_ZOOM = 9;

export class StudentMap {
  /** `names`: every pin carries its student's name (the present view, an embed); `readOnly`:
   *  popups offer nothing to change. */
  constructor(container, config, { names = false, readOnly = false } = {}) {
    this.names = names;
    this.readOnly = readOnly;
    this.map = L.map(container, mapOptions(config));
    translateLeaflet(this.map);
    this.map.setView([25, 10], initialZoom(container));
    this.addFitButton();
    /** Set once the student chose where to look (an address with a spot, a drag): the map
     *  then stays there instead of fitting itself to the class. */
    this.viewChosen = false;
    this.map.on('dragstart', () => { this.viewChosen = true; });
    this.icon = pinIcon();
    /** Pins' icons by what they show (own or not, initials), made once each. */
    this.icons = new Map();
    // Markers share their defaults through the prototype; each is made only when first drawn.
    this.Marker = L.Marker.extend({ options: { icon: this.icon, keyboard: true }, onAdd: labelledOnAdd });
    /** Drawn students by objectId (see pointsByObjectId). */
    this.byObjectId = null;
    this.ownKey = null;
    /** The account keys of the class's teachers who have a post (from the snapshot). */
    this.teacherKeys = new Set();
    this.clusters = new ClusterLayer(this.map, {
      radius: CLUSTER_RADIUS,
      lastRadius: LAST_ZOOM_RADIUS,
      pin: (point) => point.marker || (point.marker = this.markerFor(point, L.latLng(point.latitude, point.longitude))),
      fannedPin: (point, latlng) => this.markerFor(point, latlng),
      clusterIcon,
      groupOpened: (points, latlng) => this.openGroup(points, latlng),
    });
    const opened = (event) => {
      if (!event.layer.location) return;
      this.openPopup(event.layer);
      // Opened with Enter: the link gets the focus, or Tab would walk every other pin first.
      const key = event.originalEvent && event.originalEvent.detail === 0;
      const card = key && this.popup.getElement() && this.popup.getElement().querySelector('.popup-card');
      if (card) card.focus();
    };
    this.clusters.group.on('click', opened);
    this.clusters.fan.on('click', opened);
    const showZoom = () => { container.dataset.zoom = String(this.map.getZoom()); };
    this.map.on('zoomend', showZoom);
    showZoom();
    clickMarkersWithKeys(container);
    this.popup = L.popup({ maxWidth: 280, minWidth: 180, autoPanPadding: [24, 24] });
    /** The location whose popup was opened last. */
    this.popupLocation = null;
    // Another language: the open popup and the clusters' names say it.
    onLanguageChange(() => {
      if (this.popup.isOpen() && this.popupLocation) this.popup.setContent(popupContent(this.popupLocation, this));
      this.clusters.relabel();
      this.renamePins();
    });
  }

  /** The pins made so far named again: a student without a name is "Anonymous student" in
   *  the page's language. */
  renamePins() {
    for (const point of this.clusters.index.points) {
      const marker = point && point.marker;
      if (!marker) continue;
      const name = pinTitle(marker.location, point.own, point.teacher);
      if (name === marker.options.title) continue;
      marker.options.title = name;
      marker.options.alt = name;
      const element = marker.getElement();
      if (element) {
        element.title = name;
        element.alt = name;
        nameMarker(element, name);
      }
      if (marker.getTooltip()) marker.setTooltipContent(name);
    }
  }

  get markerCount() {
    return this.clusters.size;
  }

  /** Shows every student of the class (the world when there are none or they span it) and
   *  says what it fitted on the container (`data-fitted`: "world", or south,west,north,east). */
  fitToStudents() {
    const container = this.map.getContainer();
    const bounds = studentBounds(this.clusters.index.points.filter(Boolean));
    if (!bounds || bounds === 'world') {
      this.map.setView([25, 10], initialZoom(container), { animate: false });
      container.dataset.fitted = 'world';
      return;
    }
    // Names written beside the pins (to their right) need room on that side.
    const padding = this.names ? { paddingTopLeft: [48, 48], paddingBottomRight: [200, 40] } : { padding: [40, 40] };
    this.map.fitBounds([[bounds.south, bounds.west], [bounds.north, bounds.east]], {
      ...padding, maxZoom: FIT_MAX_ZOOM, animate: false,
    });
    container.dataset.fitted = [bounds.south, bounds.west, bounds.north, bounds.east].join(',');
  }

  /** The button under the zoom buttons that brings every student back into view. */
  addFitButton() {
    const control = L.control({ position: 'topleft' });
    control.onAdd = () => {
      const bar = L.DomUtil.create('div', 'leaflet-bar map-fit');
      const button = L.DomUtil.create('button', 'map-fit-button', bar);
      button.type = 'button';
      button.id = 'map-fit';
      button.innerHTML = '<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">'
        + '<path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" fill="none" stroke="currentColor" stroke-width="2"/></svg>';
      const name = () => {
        button.title = t('map.fit');
        button.setAttribute('aria-label', t('map.fit'));
      };
      name();
      onLanguageChange(name);
      L.DomEvent.disableClickPropagation(bar);
      L.DomEvent.on(button, 'click', () => this.fitToStudents());
      return bar;
    };
    control.addTo(this.map);
  }

  setBasemap(config, world) {
    addBaseLayers(this.map, config, world);
    requestAnimationFrame(() => performance.mark('onthemap:basemap-drawn'));
  }

  /** A point for one location object (the Parse list's, or a live change), or null when its
   *  coordinates are not a place. */
  pointFor(location) {
    const latitude = Number(location.latitude);
    const longitude = Number(location.longitude);
    if (!isPlace(latitude, longitude)) return null;
    const point = new MapPoint(latitude, longitude, this.isOwn(location.uniqueKey), location, null, -1);
    // A live change says nothing of roles: a teacher is known from the last snapshot.
    point.teacher = this.teacherKeys.has(location.uniqueKey);
    return point;
  }

  isOwn(uniqueKey) {
    return Boolean(this.ownKey) && uniqueKey === this.ownKey;
  }

  markerFor(point, latlng) {
    const location = point.location;
    const title = pinTitle(location, point.own, point.teacher);
    const icon = this.pinIconFor(location, point.own, point.teacher);
    const marker = new this.Marker(latlng, point.own
      ? { title, alt: title, icon, zIndexOffset: 1000 }
      : { title, alt: title, icon });
    marker.location = location;
    // Names written on the map (a projector's): the student's, beside the pin.
    if (this.names) {
      marker.bindTooltip(title, { permanent: true, direction: 'right', offset: [12, -22], className: 'pin-name', interactive: false });
    }
    return marker;
  }

  /** The icon of a student's pin: their initials on it, the signed-in student's own in the
   *  accent colour, a teacher's with a ring. */
  pinIconFor(location, own, teacher = false) {
    const letters = initials(location.firstName, location.lastName);
    const extra = `${own ? 'own' : ''} ${teacher ? 'teacher' : ''}`.trim();
    const key = `${extra}|${letters}`;
    let icon = this.icons.get(key);
    if (!icon) {
      icon = pinIcon(extra, letters);
      if (this.icons.size > 5000) this.icons.clear();
      this.icons.set(key, icon);
    }
    return icon;
  }

  /** Points for a batch: an array of locations, or a snapshot's columns (each objectId once:
   *  the snapshot and mapData see to it). */
  pointsFor(batch) {
    const points = [];
    if (Array.isArray(batch)) {
      for (const location of batch) {
        const point = this.pointFor(location);
        if (point) points.push(point);
      }
      return points;
    }
    const { columns, count } = batch;
    const zones = Array.isArray(batch.timeZones) ? batch.timeZones : null;
    const latitudes = columns.latitude, longitudes = columns.longitude, keys = columns.uniqueKey;
    // The rows the class's teachers posted (the snapshot's map layout lists them).
    const teachers = new Set(Array.isArray(batch.teachers) ? batch.teachers.filter(Number.isInteger) : []);
    for (const row of teachers) if (typeof keys.at(row) === 'string') this.teacherKeys.add(keys.at(row));
    // The student's own rows, found in the column at once (not a string cut out per row).
    const own = new Set(this.ownKey ? rowsOf(keys, this.ownKey) : []);
    for (let row = 0; row < count; row++) {
      const latitude = latitudes[row], longitude = longitudes[row];
      if (typeof latitude !== 'number' || typeof longitude !== 'number' || !isPlace(latitude, longitude)) continue;
      const point = new MapPoint(latitude, longitude, own.has(row), null, columns, row, zones);
      if (teachers.has(row)) point.teacher = true;
      points.push(point);
    }
    return points;
  }

  /** Drawn points by objectId, for live changes and reveal; made on first use after a load
   *  (a map of 100,000 strings is not worth building before the map is drawn). */
  get pointsByObjectId() {
    if (!this.byObjectId) {
      this.byObjectId = new Map();
      for (const point of this.clusters.index.points) {
        const objectId = point && point.objectId;
        if (objectId) this.byObjectId.set(objectId, point);
      }
    }
    return this.byObjectId;
  }

  /** Every location on the map (records), in the order loaded (newest first). */
  get locations() {
    return this.clusters.index.points.filter(Boolean).map((point) => point.location);
  }

  /** Replaces every marker at once (a refresh keeps the old ones until the new are in).
   *  Resolves with the count once the clusters in view are drawn. */
  setLocations(batch, ownKey = null) {
    this.beginLoad(ownKey);
    this.addBatch(batch);
    return this.finishLoad();
  }

  /** Starts a load that takes locations batch by batch as they arrive; nothing changes on
   *  screen until finishLoad. */
  beginLoad(ownKey = null) {
    this.ownKey = ownKey;
    this.loadPoints = [];
    this.teacherKeys = new Set();
  }

  addBatch(batch) {
    for (const point of this.pointsFor(batch)) this.loadPoints.push(point);
  }

  /** Swaps in the points loaded since beginLoad; resolves with the count once drawn. */
  finishLoad() {
    performance.mark('onthemap:markers-built');
    this.map.closePopup();
    this.clusters.setPoints(this.loadPoints);
    this.byObjectId = null;
    this.loadPoints = null;
    performance.mark('onthemap:markers-clustered');
    return afterPaint(this.markerCount);
  }

  /** Live hook: adds a location's marker, or moves it, with a short highlight. */
  upsertLocation(location, ownKey = null) {
    this.removeLocation(location.objectId);
    this.ownKey = ownKey;
    const point = this.pointFor(location);
    if (!point) return;
    if (location.objectId) this.pointsByObjectId.set(location.objectId, point);
    this.clusters.add(point);
    // A ring outside the cluster layer, so it shows even where the pin is clustered.
    const ring = L.circleMarker([point.latitude, point.longitude], { radius: 16, className: 'live-pulse', interactive: false });
    ring.addTo(this.map);
    setTimeout(() => ring.remove(), 2000);
    document.dispatchEvent(new CustomEvent('onthemap:live-change'));
  }

  /** Live hook: removes a location's marker; whether there was one. */
  removeLocation(objectId) {
    const point = this.pointsByObjectId.get(objectId);
    if (!point) return false;
    const where = L.latLng(point.latitude, point.longitude);
    if (this.popup.isOpen() && this.popup.getLatLng() && this.popup.getLatLng().equals(where)) this.map.closePopup();
    this.clusters.remove(point);
    this.pointsByObjectId.delete(objectId);
    document.dispatchEvent(new CustomEvent('onthemap:live-change'));
    return true;
  }

  openPopup(marker) {
    if (!marker || !marker.location) return;
    this.popupLocation = marker.location;
    this.popup.setLatLng(marker.getLatLng()).setContent(popupContent(marker.location, this)).openOn(this.map);
  }

  /** Students at one place, named: "Berlin · 5 students" and a button per student (the
   *  signed-in one marked), each opening that student's card, which leads back to the list. */
  openGroup(points, latlng) {
    // A town's thousand students sorted by name in a few milliseconds: each name made once,
    // one collator for every comparison.
    const collator = new Intl.Collator(language());
    const named = points.map((point) => ({ location: point.location, name: fullName(point.location) }))
      .sort((a, b) => collator.compare(a.name, b.name));
    const locations = named.map((entry) => entry.location);
    const teachers = new Set(points.filter((point) => point.teacher).map((point) => point.location));
    // The place is named when the group shares it (students a few streets apart may not).
    const places = new Set(locations.map((location) => location.mapString).filter(Boolean));
    const place = places.size === 1 ? [...places][0] : '';
    // Made once: "back" from a card shows the same list, every name in it, where it was.
    let made = null;
    const list = () => made || (made = makeList());
    const makeList = () => {
      const title = el('strong', { class: 'group-title', dir: 'auto', text: place
        ? `${place} · ${t('students.count', { count: locations.length })}` : t('students.count', { count: locations.length }) });
      const item = (location) => {
        const button = el('button', { type: 'button', class: 'group-name', dir: 'auto', text: fullName(location) });
        if (!this.readOnly && isOwn(location)) button.append(' ', youBadge());
        if (teachers.has(location)) button.append(' ', el('span', { class: 'teacher-badge', text: t('classOptions.role.teacher') }));
        button.addEventListener('click', () => card(location));
        return el('li', {}, [button]);
      };
      // A town's thousand names: the first screenfuls at once, the rest as soon as the list
      // is painted (the popup measures its content: a thousand names cost it 50 ms).
      const items = el('ul', { class: 'group-list' }, locations.slice(0, FIRST_NAMES).map(item));
      if (locations.length > FIRST_NAMES) {
        requestAnimationFrame(() => setTimeout(() => items.append(...locations.slice(FIRST_NAMES).map(item))));
      }
      return el('div', { class: 'popup-group', role: 'group', 'aria-label': title.textContent }, [title, items]);
    };
    const card = (location) => {
      this.popupLocation = location;
      const back = el('button', { type: 'button', class: 'group-back', text: t('map.group.back', { count: locations.length }) });
      back.addEventListener('click', () => {
        this.popupLocation = null;
        this.popup.setContent(list());
        focusFirst('.group-name');
      });
      this.popup.setContent(el('div', { class: 'popup-in-group' }, [popupContent(location, this), back]));
      focusFirst('.popup-card');
    };
    const focusFirst = (selector) => {
      const target = this.popup.getElement() && this.popup.getElement().querySelector(selector);
      if (target) {
        if (!target.matches('a, button')) target.tabIndex = -1;
        target.focus();
      }
    };
    this.popupLocation = null;
    this.popup.setLatLng(latlng).setContent(list()).openOn(this.map);
    focusFirst('.group-name');
  }

  /** Zooms to one location's marker and opens its popup (`focus`: and moves the focus into
   *  it, for "Show on map" from the keyboard); whether it is on the map. */
  reveal(objectId, { focus = false } = {}) {
    const point = this.pointsByObjectId.get(objectId);
    if (!point) return false;
    this.clusters.reveal(point, (marker) => {
      this.openPopup(marker);
      const card = focus && this.popup.getElement() && this.popup.getElement().querySelector('.popup-card');
      if (card) {
        if (!card.matches('a')) card.tabIndex = -1;
        card.focus();
      }
    });
    return true;
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

const clusterNumbers = new Map();

/** A cluster's number, short: "1234", "12k" ("١٢٣٤", "1万" in other languages). */
function clusterNumber(count) {
  const tag = language();
  if (tag === 'en') return count < 10000 ? String(count) : `${Math.round(count / 1000)}k`;
  const style = count < 10000 ? 'plain' : 'compact';
  const key = `${tag}|${style}`;
  if (!clusterNumbers.has(key)) {
    clusterNumbers.set(key, new Intl.NumberFormat(tag, style === 'plain'
      ? { useGrouping: false }
      : { notation: 'compact', maximumFractionDigits: 0 }));
  }
  return clusterNumbers.get(key).format(count);
}

function clusterIcon(count) {
  const size = count < 10 ? 'small' : count < 100 ? 'medium' : count < 1000 ? 'large' : 'huge';
  const label = clusterNumber(count);
  const dimension = { small: 34, medium: 40, large: 46, huge: 54 }[size];
  const ClusterIcon = clusterIconClass();
  return new ClusterIcon({
    html: `<span aria-hidden="true">${label}</span>`,
    className: `cluster cluster-${size}`,
    iconSize: [dimension, dimension],
    label: t('map.cluster', { count }),
  });
}
