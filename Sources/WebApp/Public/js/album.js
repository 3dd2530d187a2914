// A pin's photo album: a grid where every photo shows a placeholder until its image is
// kept on the server, then appears at once. Live changes come from the album's
// Server-Sent Events; an album already downloaded is shown from GET .../photos alone.
import * as api from './api.js';
import { el, safeURL, linkHost, setBusy, showAlert, confirmAction, describeFailure } from './ui.js';

const $ = (id) => document.getElementById(id);

const PROVIDERS = { wikimedia: 'Wikimedia Commons', flickr: 'Flickr' };
const SVG = 'http://www.w3.org/2000/svg';

function icon(pathData, className = '') {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  if (className) svg.setAttribute('class', className);
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', pathData);
  svg.append(path);
  return svg;
}

const CAMERA = 'M9 4h6l1.8 2H20a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h3.2L9 4Zm3 4.5a4.5 4.5 0 1 0 0 9 4.5 4.5 0 0 0 0-9Zm0 2a2.5 2.5 0 1 1 0 5 2.5 2.5 0 0 1 0-5Z';
const BROKEN = 'M21 5v6.6l-3-3-4 4-4-4-4 4-3-3V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2ZM3 13.4l3 3 4-4 4 4 4-4 3 3V19a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-5.6Z';
const RETRY = 'M12 4a8 8 0 0 1 7.4 5H17v2h6V5h-2v2.5A10 10 0 1 0 22 13h-2a8 8 0 1 1-8-9Z';
const LANDSCAPE = 'M5 4h14a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2Zm0 2v9.6l3.3-3.3a1 1 0 0 1 1.4 0l2.3 2.3 4.3-4.3a1 1 0 0 1 1.4 0L19 11.6V6H5Zm3.5 1.5a1.75 1.75 0 1 1 0 3.5 1.75 1.75 0 0 1 0-3.5Z';
const WARNING = 'M12 2 1 21h22L12 2Zm-1 7h2v6h-2V9Zm0 8h2v2h-2v-2Z';

/** "48.8584° N, 2.2945° E". */
export function formatCoordinates(latitude, longitude) {
  const lat = Number(latitude);
  const lng = Number(longitude);
  if (!Number.isFinite(lat) || !Number.isFinite(lng)) return '';
  return `${Math.abs(lat).toFixed(4)}° ${lat >= 0 ? 'N' : 'S'}, ${Math.abs(lng).toFixed(4)}° ${lng >= 0 ? 'E' : 'W'}`;
}

function plural(count, one, many = `${one}s`) {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

export class AlbumPanel {
  /** onPinDeleted(id) is called when the pin is deleted here or elsewhere; onClose(pinId,
   *  hadFocus) when the panel closes (hadFocus: the focus was inside it). */
  constructor({ onPinDeleted, onClose }) {
    this.onPinDeleted = onPinDeleted;
    this.onClose = onClose;
    this.panel = $('album');
    this.grid = $('album-grid');
    this.creditsList = $('album-credits-list');
    this.newButton = $('album-new');
    this.pin = null;
    this.album = null;
    this.photos = [];
    this.tiles = new Map();
    this.credits = new Map();
    this.source = null;
    this.generation = 0;
    this.busy = false;
    this.failure = null;
    this.retryTimer = null;

    $('album-close').addEventListener('click', () => this.close());
    $('album-delete-pin').addEventListener('click', () => this.deletePin());
    this.newButton.addEventListener('click', () => this.newCollection());
    this.grid.addEventListener('click', (event) => {
      const retry = event.target.closest('.photo-retry');
      if (retry) {
        this.retryPhoto(retry.closest('.photo').dataset.id);
        return;
      }
      const button = event.target.closest('.photo-button');
      if (button) this.removePhoto(button.closest('.photo').dataset.id);
    });
    // On the document: a button that is busy (disabled) has dropped the focus to the body.
    document.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || !this.isOpen || document.querySelector('dialog[open]')) return;
      if (!this.panel.contains(document.activeElement) && document.activeElement !== document.body) return;
      event.stopPropagation();
      this.close();
    });
  }

  get isOpen() { return !this.panel.hidden; }

  get pinId() { return this.pin ? this.pin.id : null; }

  // ---- opening and closing ----

  /** Opens the pin's album: its kept photos at once, then live changes while any are due. */
  async open(pin, { newerThan = null, tries = 0 } = {}) {
    const generation = ++this.generation;
    this.stopStream();
    const samePin = this.pin && this.pin.id === pin.id;
    this.pin = pin;
    this.failure = null;
    if (!samePin) this.clearPhotos();
    this.panel.hidden = false;
    this.panel.dataset.pinId = pin.id;
    this.panel.dataset.state = 'loading';
    this.render();
    $('album-close').focus({ preventScroll: true });
    let body;
    try {
      body = await api.fetchAlbum(pin.id);
    } catch (error) {
      if (generation !== this.generation) return;
      if (error.kind === 'notFound') {
        this.pinGone(pin.id, 'This pin no longer exists.');
        return;
      }
      this.panel.dataset.state = 'error';
      this.failure = describeFailure(error, 'loading the album').message;
      this.render();
      return;
    }
    if (generation !== this.generation) return;
    this.apply(body);
    if (newerThan !== null && this.album.settled && this.album.collection <= newerThan && tries < 15) {
      // The pin just moved: the server starts its new search a moment after answering.
      this.album = { ...this.album, status: 'searching', settled: false };
      this.render();
      this.retryTimer = setTimeout(() => {
        if (generation === this.generation) this.open(this.pin, { newerThan, tries: tries + 1 });
      }, 400);
      return;
    }
    if (!this.album.settled) this.startStream();
  }

  /** The open pin moved: show its album as it is fetched for the new place. */
  moved(pin) {
    if (!this.isOpen || !this.pin || this.pin.id !== pin.id) return;
    this.open(pin, { newerThan: this.album ? this.album.collection : 0 });
  }

  close() {
    if (!this.isOpen) return;
    const active = document.activeElement;
    const hadFocus = this.panel.contains(active) || !active || active === document.body;
    const pinId = this.pinId;
    this.generation += 1;
    this.stopStream();
    this.panel.hidden = true;
    delete this.panel.dataset.pinId;
    const onClose = this.onClose;
    if (onClose) onClose(pinId, hadFocus);
  }

  /** Forgets everything (logging out). */
  reset() {
    this.close();
    this.pin = null;
    this.clearPhotos();
  }

  clearPhotos() {
    this.album = null;
    this.photos = [];
    this.tiles.clear();
    this.credits.clear();
    this.grid.replaceChildren();
    this.creditsList.replaceChildren();
  }

  /** Reloads the open album (the refresh button). */
  reload() {
    if (this.isOpen && this.pin) this.open(this.pin);
  }

  pinGone(id, message) {
    this.close();
    if (this.onPinDeleted) this.onPinDeleted(id, message);
  }

  // ---- live updates ----

  startStream() {
    this.stopStream();
    const pinId = this.pin.id;
    const source = new EventSource(api.albumEventsURL(pinId));
    this.source = source;
    this.panel.dataset.live = 'connecting';
    const parse = (event) => {
      if (this.source !== source) return null;
      try { return JSON.parse(event.data); } catch { return null; }
    };
    source.addEventListener('open', () => {
      if (this.source === source) this.panel.dataset.live = 'open';
    });
    source.addEventListener('album', (event) => {
      const body = parse(event);
      if (body) this.apply(body);
    });
    source.addEventListener('photo', (event) => {
      const photo = parse(event);
      if (photo) this.applyPhoto(photo);
    });
    source.addEventListener('photo-removed', (event) => {
      const body = parse(event);
      if (body && body.id) this.dropPhoto(body.id);
    });
    source.addEventListener('done', (event) => {
      const body = parse(event);
      // The server ends the stream after `done`: close it, or EventSource reconnects.
      this.stopStream();
      if (body) this.apply(body);
    });
    source.addEventListener('pin-deleted', () => {
      if (this.source !== source) return;
      this.stopStream();
      this.pinGone(pinId, 'This pin was deleted.');
    });
    source.addEventListener('error', () => {
      if (this.source !== source) return;
      if (source.readyState === EventSource.CLOSED) {
        // Refused (signed out, pin gone) or unreadable: ask again with a plain GET.
        this.stopStream();
        this.retryTimer = setTimeout(() => {
          if (this.pin && this.pin.id === pinId && this.isOpen) this.open(this.pin);
        }, 3000);
      } else {
        this.panel.dataset.live = 'reconnecting';
      }
      this.render();
    });
  }

  stopStream() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.source) this.source.close();
    this.source = null;
    delete this.panel.dataset.live;
  }

  // ---- applying server state ----

  /** A whole album: `{ pin, album, photos }`. */
  apply(body) {
    if (!body || !body.album || !Array.isArray(body.photos)) return;
    if (body.pin && this.pin && body.pin.id !== this.pin.id) return;
    if (body.pin) this.pin = body.pin;
    this.album = body.album;
    this.photos = body.photos.slice();
    this.panel.dataset.state = 'ready';
    this.render();
  }

  applyPhoto(photo) {
    const index = this.photos.findIndex((p) => p.id === photo.id);
    if (index < 0) return; // a photo of an older collection
    this.photos[index] = photo;
    this.recount();
    this.render();
  }

  dropPhoto(id) {
    const index = this.photos.findIndex((p) => p.id === id);
    if (index < 0) return;
    this.photos.splice(index, 1);
    this.recount();
    this.render();
  }

  /** Keeps the album's counts in step with single-photo changes. */
  recount() {
    if (!this.album) return;
    const count = (state) => this.photos.filter((p) => p.state === state).length;
    this.album = { ...this.album, pending: count('pending'), ready: count('ready'), failed: count('failed') };
  }

  get settled() {
    return Boolean(this.album && this.album.settled && !this.photos.some((p) => p.state === 'pending'));
  }

  // ---- drawing ----

  render() {
    const pin = this.pin;
    const album = this.album;
    $('album-title').textContent = pin ? pin.placeName || formatCoordinates(pin.latitude, pin.longitude) : '';
    $('album-title').title = pin ? formatCoordinates(pin.latitude, pin.longitude) : '';
    const settled = this.settled;
    this.panel.dataset.settled = String(settled);
    this.panel.dataset.status = album ? album.status : '';
    this.panel.dataset.collection = album ? String(album.collection) : '';

    // Header: what is happening and how far along it is.
    const progress = $('album-progress');
    const meter = $('album-meter');
    const total = this.photos.length;
    const ready = this.photos.filter((p) => p.state === 'ready').length;
    const failed = this.photos.filter((p) => p.state === 'failed').length;
    let text;
    let fraction = null;
    if (!album) {
      text = this.panel.dataset.state === 'error' ? 'Could not load the album' : 'Loading album…';
    } else if (album.status === 'searching') {
      text = `Looking for photos on ${PROVIDERS[album.provider] || 'the photo service'}…`;
      fraction = -1;
    } else if (!settled && total > 0) {
      text = `Downloading photos: ${ready} of ${total}`;
      fraction = total ? (ready + failed) / total : 0;
    } else if (total === 0) {
      text = album.status === 'failed' ? 'No photos yet' : 'No photos';
    } else {
      text = plural(ready, 'photo') + (failed ? ` · ${failed} could not be downloaded` : '');
    }
    if (this.panel.dataset.live === 'reconnecting') text += ' · reconnecting…';
    progress.textContent = text;
    meter.hidden = fraction === null;
    meter.classList.toggle('indeterminate', fraction === -1);
    if (fraction !== null && fraction >= 0) meter.firstElementChild.style.width = `${Math.round(fraction * 100)}%`;

    // The failure of the last search (the kept photos stay).
    const banner = $('album-banner');
    const problem = this.failure || (album && album.error && total > 0 ? `Could not get a new collection: ${album.error.message}` : null);
    banner.textContent = problem || '';
    banner.hidden = !problem;

    this.renderGrid(settled);
    this.renderEmpty(album, total);
    this.renderCredits();

    // Footer: New Collection waits until the album is settled.
    const canReplace = Boolean(album) && settled && !this.busy;
    if (!this.busy) {
      this.newButton.disabled = !canReplace;
      this.newButton.querySelector('.button-label').textContent =
        album && total === 0 && album.status === 'failed' ? 'Try Again' : 'New Collection';
    }
    const hint = $('album-hint');
    if (!album) hint.textContent = '';
    else if (this.busy) hint.textContent = 'Asking for a new set of photos…';
    else if (!settled) hint.textContent = 'Photos can be removed once they have all arrived.';
    else if (total > 0) hint.textContent = 'Tap a photo to remove it from the album.';
    else hint.textContent = '';
  }

  renderGrid(settled) {
    const wanted = [];
    const seen = new Set();
    for (const photo of this.photos) {
      seen.add(photo.id);
      let tile = this.tiles.get(photo.id);
      if (!tile) {
        tile = this.buildTile(photo);
        this.tiles.set(photo.id, tile);
      }
      this.updateTile(tile, photo, settled);
      wanted.push(tile);
    }
    for (const [id] of this.tiles) if (!seen.has(id)) this.tiles.delete(id);
    const current = Array.from(this.grid.children);
    if (current.length !== wanted.length || current.some((node, index) => node !== wanted[index])) {
      this.grid.replaceChildren(...wanted);
    }
    this.grid.hidden = wanted.length === 0;
  }

  buildTile(photo) {
    const button = el('button', { class: 'photo-button', type: 'button' }, [
      el('span', { class: 'photo-placeholder' }, [icon(CAMERA)]),
      el('span', { class: 'photo-caption' }),
    ]);
    return el('li', { class: 'photo', dataset: { id: photo.id } }, [button]);
  }

  updateTile(tile, photo, settled) {
    const button = tile.firstElementChild;
    const credit = [photo.title, photo.author && `by ${photo.author}`, photo.license].filter(Boolean).join(' · ');
    button.title = settled ? `${credit}\nClick to remove this photo` : credit;
    button.setAttribute('aria-label', settled ? `Remove photo: ${photo.title || 'untitled'}` : `Photo: ${photo.title || 'untitled'}`);
    button.setAttribute('aria-disabled', String(!settled || tile.classList.contains('removing')));
    tile.querySelector('.photo-caption').textContent = photo.author || '';
    tile.dataset.photoState = photo.state;

    if (photo.state === 'ready' && photo.imageURL) {
      const src = photo.imageURL;
      if (tile.dataset.src === src) return;
      tile.dataset.src = src;
      // The image replaces the placeholder only once it is decoded, so it appears whole.
      const image = new Image();
      image.className = 'photo-image';
      image.alt = photo.title || 'Photo';
      image.decoding = 'async';
      image.src = src;
      const show = () => {
        if (tile.dataset.src !== src) return;
        const old = button.querySelector('.photo-image, .photo-placeholder, .photo-failed');
        if (old) old.replaceWith(image);
        else button.prepend(image);
        tile.dataset.state = 'ready';
        this.retryButton(tile, false);
      };
      image.decode().then(show, () => {
        if (tile.dataset.src !== src) return;
        tile.dataset.state = 'broken';
        this.showFailed(tile, 'Image unavailable');
      });
      return;
    }
    delete tile.dataset.src;
    if (photo.state === 'failed') {
      tile.dataset.state = 'failed';
      this.showFailed(tile, 'Not downloaded');
      this.retryButton(tile, true, photo.failureReason);
    } else {
      tile.dataset.state = 'pending';
      this.retryButton(tile, false);
      const old = button.querySelector('.photo-image, .photo-failed');
      if (old) old.replaceWith(el('span', { class: 'photo-placeholder' }, [icon(CAMERA)]));
    }
  }

  showFailed(tile, label) {
    const button = tile.firstElementChild;
    const failed = el('span', { class: 'photo-failed' }, [icon(BROKEN), el('span', { text: label })]);
    const old = button.querySelector('.photo-image, .photo-placeholder, .photo-failed');
    if (old) old.replaceWith(failed);
    else button.prepend(failed);
  }

  retryButton(tile, wanted, reason = '') {
    let retry = tile.querySelector('.photo-retry');
    if (!wanted) {
      if (retry) retry.remove();
      return;
    }
    if (!retry) {
      retry = el('button', { class: 'photo-retry', type: 'button', 'aria-label': 'Download this photo again' }, [icon(RETRY)]);
      tile.append(retry);
    }
    retry.title = reason ? `Try again (${reason})` : 'Try again';
  }

  renderEmpty(album, total) {
    const box = $('album-empty');
    let title = null;
    let text = '';
    let kind = 'photos';
    if (this.panel.dataset.state === 'error') {
      title = 'Could not load this album';
      text = this.failure || '';
      kind = 'error';
    } else if (album && total === 0) {
      if (album.status === 'searching') {
        title = 'Looking for photos…';
        text = 'Photos taken near this place appear here as they arrive.';
        kind = 'searching';
      } else if (album.status === 'failed' && album.error) {
        title = 'Photos could not be found';
        text = album.error.message;
        kind = 'error';
      } else if (album.settled) {
        title = 'No photos here';
        text = `${PROVIDERS[album.provider] || 'The photo service'} has no photos taken near this place. Try New Collection, or drop a pin somewhere else.`;
      }
    } else if (!album && this.panel.dataset.state === 'loading' && total === 0) {
      title = 'Loading…';
      kind = 'searching';
    }
    box.hidden = !title;
    box.dataset.kind = kind;
    if (title) {
      $('album-empty-title').textContent = title;
      $('album-empty-text').textContent = text;
      $('album-empty-icon').replaceChildren(icon(kind === 'error' ? WARNING : LANDSCAPE));
    }
  }

  renderCredits() {
    const section = $('album-credits');
    const items = [];
    const seen = new Set();
    for (const photo of this.photos) {
      seen.add(photo.id);
      const key = `${photo.id}|${photo.title}|${photo.author}|${photo.license}|${photo.attributionURL}`;
      let entry = this.credits.get(photo.id);
      if (!entry || entry.key !== key) {
        entry = { key, node: this.buildCredit(photo) };
        this.credits.set(photo.id, entry);
      }
      items.push(entry.node);
    }
    for (const [id] of this.credits) if (!seen.has(id)) this.credits.delete(id);
    const current = Array.from(this.creditsList.children);
    if (current.length !== items.length || current.some((node, index) => node !== items[index])) {
      this.creditsList.replaceChildren(...items);
    }
    section.hidden = items.length === 0;
    const provider = this.album && PROVIDERS[this.album.provider];
    $('album-credits-title').textContent = provider ? `Photo credits · ${provider}` : 'Photo credits';
  }

  buildCredit(photo) {
    const href = safeURL(photo.attributionURL);
    const title = photo.title || 'Untitled';
    const name = href
      ? el('a', { class: 'credit-title', href, target: '_blank', rel: 'noopener noreferrer', title: `${title} on ${linkHost(href)}` , text: title })
      : el('span', { class: 'credit-title', text: title });
    const details = [photo.author ? `by ${photo.author}` : null, photo.license || null].filter(Boolean).join(' · ');
    return el('li', { class: 'credit', dataset: { id: photo.id } }, [
      name,
      details ? el('span', { class: 'credit-details', text: details }) : null,
    ]);
  }

  // ---- actions ----

  async removePhoto(id) {
    const tile = this.tiles.get(id);
    if (!tile || tile.classList.contains('removing')) return;
    if (!this.settled) {
      tile.classList.remove('nudge');
      void tile.offsetWidth;
      tile.classList.add('nudge');
      return;
    }
    tile.classList.add('removing');
    tile.firstElementChild.setAttribute('aria-disabled', 'true');
    try {
      await api.deletePhoto(id);
    } catch (error) {
      if (error.kind !== 'notFound') {
        tile.classList.remove('removing');
        tile.firstElementChild.setAttribute('aria-disabled', 'false');
        const { title, message } = describeFailure(error, 'removing the photo');
        await showAlert(title, message);
        return;
      }
    }
    // The focus was on the removed photo: it moves to the one that takes its place.
    const hadFocus = tile.contains(document.activeElement);
    const index = this.photos.findIndex((p) => p.id === id);
    this.dropPhoto(id);
    if (hadFocus) {
      const next = this.grid.children[Math.min(index, this.grid.children.length - 1)];
      (next ? next.firstElementChild : this.newButton).focus();
    }
  }

  async retryPhoto(id) {
    try {
      const photo = await api.retryPhoto(id);
      if (photo) this.applyPhoto(photo);
      if (this.album) this.album = { ...this.album, settled: false };
      this.render();
      if (!this.source) this.startStream();
    } catch (error) {
      const { title, message } = describeFailure(error, 'downloading the photo again');
      await showAlert(title, message);
    }
  }

  async newCollection() {
    if (!this.pin || this.busy || !this.settled) return;
    const pin = this.pin;
    const generation = this.generation;
    this.busy = true;
    setBusy(this.newButton, true, 'Finding Photos…');
    this.render();
    let body = null;
    let failure = null;
    try {
      body = await api.newCollection(pin.id);
    } catch (error) {
      failure = error;
    }
    this.busy = false;
    setBusy(this.newButton, false);
    if (generation !== this.generation || !this.pin || this.pin.id !== pin.id) return;
    if (failure) {
      if (failure.kind === 'notFound') {
        this.pinGone(pin.id, 'This pin no longer exists.');
        return;
      }
      // The server keeps the album as it was; say why nothing changed.
      if (this.album) this.album = { ...this.album, status: 'failed', error: { code: failure.code || 'failed', message: failure.message } };
      this.render();
      const title = failure.status === 409 ? 'No Other Photos'
        : failure.kind === 'network' ? 'Network Error' : 'Photos Unavailable';
      const message = failure.kind === 'network'
        ? 'Cannot reach the server, so no new collection was fetched. Your photos are kept.'
        : `${failure.message} Your photos are kept.`;
      await showAlert(title, message);
      return;
    }
    this.failure = null;
    this.apply(body);
    if (!this.album.settled) this.startStream();
  }

  async deletePin() {
    const pin = this.pin;
    if (!pin) return;
    const count = this.photos.length;
    const ok = await confirmAction(
      'Delete This Pin?',
      `The pin at ${pin.placeName || formatCoordinates(pin.latitude, pin.longitude)}${count ? ` and its ${plural(count, 'photo')}` : ''} will be deleted.`,
      'Delete',
      'Cancel',
    );
    if (!ok || !this.pin || this.pin.id !== pin.id) return;
    const button = $('album-delete-pin');
    button.disabled = true;
    try {
      await api.deletePin(pin.id);
    } catch (error) {
      button.disabled = false;
      if (error.kind !== 'notFound') {
        const { title, message } = describeFailure(error, 'deleting the pin');
        await showAlert(title, message);
        return;
      }
    }
    button.disabled = false;
    this.pinGone(pin.id, 'Pin deleted.');
  }
}
