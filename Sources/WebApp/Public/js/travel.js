// The Travel tab: a map of the signed-in user's pins, kept in step with the server (load,
// drop, move); clicking a pin opens its photo album (album.js). The gestures that drop and
// move pins are travelGestures.js.
import * as api from './api.js';
import { showAlert, describeFailure } from './ui.js';
import { PinGestures, travelIcon } from './travelGestures.js';
import { addBaseLayers, mapOptions, translateLeaflet, nameMarker, clickMarkersWithKeys } from './map.js';
import { AlbumPanel } from './album.js';
import { placeOf } from './albumView.js';
import { refuseWhileOffline } from './connection.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';

const L = window.L;

export class TravelTab {
  constructor({ configPromise, loadWorld }) {
    this.configPromise = configPromise;
    this.loadWorld = loadWorld;
    this.container = $('travel-map');
    this.view = $('travel-view');
    this.map = null;
    this.mapPromise = null;
    this.markers = new Map();
    this.pins = new Map();
    this.loaded = false;
    this.loading = null;
    this.active = false;
    this.gestures = new PinGestures(this);
    this.toastTimer = null;
    this.album = new AlbumPanel({
      onPinDeleted: (id, message) => this.forgetPin(id, message),
      onClose: (pinId, hadFocus) => {
        this.select(null);
        // A keyboard user goes back to the pin the album belongs to (or the map).
        if (hadFocus) {
          const marker = this.markers.get(pinId);
          ((marker && marker.getElement()) || this.container).focus({ preventScroll: true });
        }
      },
    });
    onLanguageChange(() => this.retranslate());
  }

  /** A new language: the status line and every pin's name again (a place without a name
   *  is its coordinates, which read differently per language). */
  retranslate() {
    const state = $('travel-status').dataset.state;
    if (state === 'ready') this.setStatus(this.statusText(), 'ready');
    else if (state === 'loading') this.setStatus(this.loaded ? this.statusText() : t('travel.status.loading'), 'loading');
    else if (state === 'error') this.setStatus(t('travel.status.failed'), 'error');
    for (const marker of this.markers.values()) {
      const pin = this.pins.get(marker.pinId);
      const element = marker.getElement();
      if (pin && element) {
        const title = placeOf(pin);
        element.title = title;
        element.alt = title;
      }
      this.tagMarker(marker);
    }
  }

  // ---- showing the tab ----

  async show() {
    this.active = true;
    const map = await this.ensureMap();
    if (!this.active) return;
    map.invalidateSize();
    if (!this.loaded && !this.loading) this.reload({ fit: true });
  }

  hide() {
    this.active = false;
    this.gestures.cancelHold();
  }

  /** Logging out: no pins, no album, no live stream. */
  reset() {
    this.album.reset();
    this.gestures.cancelHold();
    for (const marker of this.markers.values()) marker.remove();
    this.markers.clear();
    this.pins.clear();
    this.loaded = false;
    this.loading = null;
    this.generation = (this.generation || 0) + 1;
    delete this.container.dataset.pinCount;
    delete this.container.dataset.state;
    this.setStatus('', '');
    $('travel-empty').hidden = true;
  }

  /** The refresh button on this tab: pins again, and the open album. */
  refresh() {
    const job = this.reload({ fit: false });
    this.album.reload();
    return job;
  }

  ensureMap() {
    if (!this.mapPromise) {
      this.mapPromise = (async () => {
        const config = await this.configPromise;
        const map = L.map(this.container, { ...mapOptions(config), doubleClickZoom: true });
        translateLeaflet(map);
        map.setView([30, 10], 2);
        this.map = map;
        this.container.dataset.zoom = String(map.getZoom());
        map.on('zoomend', () => { this.container.dataset.zoom = String(map.getZoom()); });
        this.loadWorld().then((world) => {
          addBaseLayers(map, config, world);
          this.container.dataset.basemap = 'ready';
        });
        this.gestures.listen(map);
        clickMarkersWithKeys(this.container);
        return map;
      })();
    }
    return this.mapPromise;
  }

  // ---- pins ----

  reload({ fit = false } = {}) {
    if (this.loading) return this.loading;
    const generation = this.generation || 0;
    this.setStatus(this.loaded ? this.statusText() : t('travel.status.loading'), 'loading');
    this.loading = (async () => {
      let pins;
      try {
        [pins] = await Promise.all([api.fetchPins(), this.ensureMap()]);
      } catch (error) {
        if (generation !== (this.generation || 0)) return;
        this.loading = null;
        this.setStatus(this.loaded ? this.statusText() : t('travel.status.failed'), this.loaded ? 'ready' : 'error');
        const { title, message } = describeFailure(error, t('travel.failure.loading'));
        await showAlert(title, message);
        return;
      }
      if (generation !== (this.generation || 0)) return;
      this.loading = null;
      const seen = new Set();
      for (const pin of pins) {
        seen.add(pin.id);
        this.placePin(pin);
      }
      for (const id of Array.from(this.markers.keys())) {
        if (!seen.has(id)) this.removeMarker(id);
      }
      this.loaded = true;
      this.container.dataset.state = 'ready';
      this.updateCount();
      if (fit && pins.length > 0) this.fitPins();
    })();
    return this.loading;
  }

  fitPins() {
    const points = Array.from(this.pins.values()).map((pin) => [pin.latitude, pin.longitude]);
    if (points.length === 0) return;
    const maxZoom = Math.min(this.map.getMaxZoom(), 6);
    if (points.length === 1) this.map.setView(points[0], Math.min(5, maxZoom), { animate: false });
    else this.map.fitBounds(L.latLngBounds(points), { maxZoom, padding: [48, 48], animate: false });
  }

  /** Adds the pin's marker, or moves it to where the server says it is. */
  placePin(pin) {
    this.pins.set(pin.id, pin);
    let marker = this.markers.get(pin.id);
    const title = placeOf(pin);
    if (!marker) {
      marker = L.marker([pin.latitude, pin.longitude], { icon: travelIcon(), keyboard: true, title, alt: title, riseOnHover: true });
      marker.pinId = pin.id;
      marker.on('click', () => this.openAlbum(marker.pinId));
      marker.on('add', () => this.tagMarker(marker));
      marker.addTo(this.map);
      this.markers.set(pin.id, marker);
    } else {
      const current = marker.getLatLng();
      // A pin dropped on a copy of the world stays where it was dropped.
      const same = Math.abs(current.lat - pin.latitude) < 1e-9 &&
        Math.abs(L.latLng(current).wrap().lng - pin.longitude) < 1e-9;
      if (!same) marker.setLatLng([pin.latitude, pin.longitude]);
      const element = marker.getElement();
      if (element) {
        element.title = title;
        element.alt = title;
      }
    }
    this.tagMarker(marker);
    return marker;
  }

  tagMarker(marker) {
    const element = marker.getElement();
    if (!element) return;
    element.dataset.pinId = marker.pinId || '';
    const pin = this.pins.get(marker.pinId);
    nameMarker(element, pin ? t('travel.pin.openAlbum', { place: placeOf(pin) }) : t('travel.pin.new'));
    element.classList.toggle('selected', Boolean(marker.pinId) && marker.pinId === this.album.pinId && this.album.isOpen);
  }

  removeMarker(id) {
    const marker = this.markers.get(id);
    if (marker) marker.remove();
    this.markers.delete(id);
    this.pins.delete(id);
  }

  forgetPin(id, message) {
    this.removeMarker(id);
    this.updateCount();
    if (message) this.toast(message);
  }

  openAlbum(id) {
    const pin = this.pins.get(id);
    if (!pin || this.gestures.drag) return;
    this.album.open(pin);
    this.select(id);
    this.keepInView(this.markers.get(id));
  }

  /** On a wide screen the album covers the right of the map: pan the pin out from under it. */
  keepInView(marker) {
    if (!marker || !this.map) return;
    requestAnimationFrame(() => {
      const panel = $('album');
      const mapWidth = this.container.clientWidth;
      const covered = panel.hidden ? 0 : panel.getBoundingClientRect().width;
      if (covered <= 0 || covered >= mapWidth - 120) return;
      const point = this.map.latLngToContainerPoint(marker.getLatLng());
      const visibleRight = mapWidth - covered;
      const target = visibleRight / 2;
      if (point.x > visibleRight - 40 || point.x < 40) this.map.panBy([point.x - target, 0], { animate: true });
    });
  }

  select(id) {
    for (const marker of this.markers.values()) {
      const element = marker.getElement();
      if (element) element.classList.toggle('selected', marker.pinId === id);
    }
    this.view.classList.toggle('album-open', Boolean(id));
    if (this.map) setTimeout(() => this.map.invalidateSize(), 0);
  }

  statusText() {
    const count = this.pins.size;
    return count === 0 ? '' : t('travel.status.count', { count });
  }

  updateCount() {
    this.container.dataset.pinCount = String(this.pins.size);
    this.setStatus(this.statusText(), 'ready');
    $('travel-empty').hidden = !this.loaded || this.pins.size > 0;
  }

  setStatus(text, stateName) {
    const status = $('travel-status');
    status.textContent = text;
    status.dataset.state = stateName;
  }

  toast(text) {
    const toast = $('travel-toast');
    toast.textContent = text;
    toast.hidden = false;
    toast.classList.remove('leaving');
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => {
      toast.classList.add('leaving');
      this.toastTimer = setTimeout(() => { toast.hidden = true; }, 250);
    }, 3500);
  }

  /** A picked-up pin was let go: PATCH its new place (the server fetches its album again). */
  async movePin(drag, cancelled) {
    const { marker, pinId, from } = drag;
    const element = marker.getElement();
    if (element) element.classList.remove('dragging');
    const to = marker.getLatLng();
    const fromPoint = this.map.latLngToContainerPoint(from);
    const toPoint = this.map.latLngToContainerPoint(to);
    if (cancelled || fromPoint.distanceTo(toPoint) < 4) {
      marker.setLatLng(from);
      return;
    }
    if (element) element.classList.add('saving');
    const wrapped = to.wrap();
    const generation = this.generation || 0;
    let pin;
    try {
      pin = await api.movePin(pinId, Number(wrapped.lat.toFixed(6)), Number(wrapped.lng.toFixed(6)));
    } catch (error) {
      if (element) element.classList.remove('saving');
      if (generation !== (this.generation || 0)) return;
      if (error.kind === 'notFound') {
        this.forgetPin(pinId, t('travel.toast.gone'));
        return;
      }
      marker.setLatLng(from);
      const { title, message } = describeFailure(error, t('travel.failure.moving'));
      await showAlert(title, message);
      return;
    }
    if (element) element.classList.remove('saving');
    if (generation !== (this.generation || 0)) return;
    this.placePin(pin);
    marker.setLatLng([pin.latitude, to.lng + (pin.longitude - wrapped.lng)]);
    this.toast(t('travel.toast.moved', { place: placeOf(pin) }));
    this.album.moved(pin);
  }

  async savePin(marker) {
    const element = marker.getElement();
    if (element) {
      element.classList.remove('dragging');
      element.classList.add('saving');
    }
    const at = marker.getLatLng();
    const wrapped = at.wrap();
    const generation = this.generation || 0;
    if (await refuseWhileOffline(t('travel.offline.dropping'))) {
      marker.remove();
      return;
    }
    let pin;
    try {
      pin = await api.createPin(Number(wrapped.lat.toFixed(6)), Number(wrapped.lng.toFixed(6)));
    } catch (error) {
      marker.remove();
      if (generation !== (this.generation || 0)) return;
      const { title, message } = error.status === 409
        ? { title: t('travel.tooMany.title'), message: error.message }
        : describeFailure(error, t('travel.failure.dropping'));
      await showAlert(title, message);
      return;
    }
    marker.remove();
    if (generation !== (this.generation || 0)) return;
    const placed = this.placePin(pin);
    // Keep it on the world copy where it was dropped.
    placed.setLatLng([pin.latitude, at.lng + (pin.longitude - wrapped.lng)]);
    this.updateCount();
    this.toast(t('travel.toast.dropped', { place: placeOf(pin) }));
  }
}
