// A pin's photo album: its state (the pin, the album, its photos) and what the student can
// do with it (remove a photo, retry one, New Collection, delete the pin). An album already
// downloaded is shown from GET .../photos alone; one still arriving also listens to its
// live changes (albumStream.js). albumView.js draws it.
import * as api from './api.js';
import { setBusy, showAlert, confirmAction, describeFailure } from './ui.js';
import { AlbumView, placeOf } from './albumView.js';
import { listenToAlbum } from './albumStream.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';

export class AlbumPanel {
  /** onPinDeleted(id) is called when the pin is deleted here or elsewhere; onClose(pinId,
   *  hadFocus) when the panel closes (hadFocus: the focus was inside it). */
  constructor({ onPinDeleted, onClose }) {
    this.onPinDeleted = onPinDeleted;
    this.onClose = onClose;
    this.panel = $('album');
    this.view = new AlbumView(this);
    this.grid = this.view.grid;
    this.newButton = this.view.newButton;
    this.pin = null;
    this.album = null;
    this.photos = [];
    this.source = null;
    this.generation = 0;
    this.busy = false;
    /** Why the album could not be loaded (an ApiError), shown in the page's language. */
    this.loadError = null;
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
    onLanguageChange(() => { if (this.isOpen) this.render(); });
  }

  /** The sentence saying why the album could not be loaded, or null. */
  get failure() {
    return this.loadError ? describeFailure(this.loadError, t('album.failure.loading')).message : null;
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
    this.loadError = null;
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
        this.pinGone(pin.id, t('travel.toast.gone'));
        return;
      }
      this.panel.dataset.state = 'error';
      this.loadError = error;
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
    this.view.clear();
  }

  /** Reloads the open album (the refresh button). */
  reload() {
    if (this.isOpen && this.pin) this.open(this.pin);
  }

  pinGone(id, message) {
    this.close();
    if (this.onPinDeleted) this.onPinDeleted(id, message);
  }

  // ---- live updates (albumStream.js) ----

  startStream() {
    this.stopStream();
    const pinId = this.pin.id;
    this.panel.dataset.live = 'connecting';
    this.source = listenToAlbum(pinId, {
      open: () => { this.panel.dataset.live = 'open'; },
      album: (body) => this.apply(body),
      photo: (photo) => this.applyPhoto(photo),
      photoRemoved: (id) => this.dropPhoto(id),
      done: (body) => {
        this.stopStream();
        if (body) this.apply(body);
      },
      pinDeleted: () => {
        this.stopStream();
        this.pinGone(pinId, t('album.toast.deletedElsewhere'));
      },
      lost: () => {
        // Refused (signed out, pin gone) or unreadable: ask again with a plain GET.
        this.stopStream();
        this.retryTimer = setTimeout(() => {
          if (this.pin && this.pin.id === pinId && this.isOpen) this.open(this.pin);
        }, 3000);
        this.render();
      },
      reconnecting: () => {
        this.panel.dataset.live = 'reconnecting';
        this.render();
      },
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

  // ---- drawing (albumView.js) ----

  render() {
    this.view.render();
  }

  // ---- actions ----

  async removePhoto(id) {
    const tile = this.view.tiles.get(id);
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
        const { title, message } = describeFailure(error, t('album.failure.removing'));
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
      const { title, message } = describeFailure(error, t('album.failure.retrying'));
      await showAlert(title, message);
    }
  }

  async newCollection() {
    if (!this.pin || this.busy || !this.settled) return;
    const pin = this.pin;
    const generation = this.generation;
    this.busy = true;
    setBusy(this.newButton, true, t('album.new.busy'));
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
        this.pinGone(pin.id, t('travel.toast.gone'));
        return;
      }
      // The server keeps the album as it was; say why nothing changed.
      if (this.album) this.album = { ...this.album, status: 'failed', error: { code: failure.code || 'failed', message: failure.message } };
      this.render();
      const title = failure.status === 409 ? t('album.newFailed.noOtherTitle')
        : failure.kind === 'network' ? t('failure.network.title') : t('album.newFailed.unavailableTitle');
      const message = failure.kind === 'network'
        ? t('album.newFailed.network')
        : t('album.newFailed.message', { reason: failure.message });
      await showAlert(title, message);
      return;
    }
    this.loadError = null;
    this.apply(body);
    if (!this.album.settled) this.startStream();
  }

  async deletePin() {
    const pin = this.pin;
    if (!pin) return;
    const count = this.photos.length;
    const ok = await confirmAction(
      t('album.delete.title'),
      t('album.delete.message', { place: placeOf(pin), count }),
      t('album.delete.confirm'),
      t('common.cancel'),
    );
    if (!ok || !this.pin || this.pin.id !== pin.id) return;
    const button = $('album-delete-pin');
    button.disabled = true;
    try {
      await api.deletePin(pin.id);
    } catch (error) {
      button.disabled = false;
      if (error.kind !== 'notFound') {
        const { title, message } = describeFailure(error, t('album.failure.deleting'));
        await showAlert(title, message);
        return;
      }
    }
    button.disabled = false;
    this.pinGone(pin.id, t('album.toast.deleted'));
  }
}
