// How an album looks: the header's progress, the photo grid (placeholders until each image
// is kept on the server), the empty and error states, and the credits. It draws what the
// AlbumPanel (album.js) holds and changes nothing itself.
import { el, safeURL, linkHost, formatCoordinates } from './ui.js';
import { $ } from './dom.js';
import { t, language } from './i18n.js';

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

/** A pin's place: its name, else its coordinates (in the page's language). */
export function placeOf(pin) {
  return pin.placeName || formatCoordinates(pin.latitude, pin.longitude);
}

/** "by Ana · CC BY-SA 4.0": a photo's author and licence, without its title. */
function byline(photo) {
  return [photo.author ? t('album.photo.by', { author: photo.author }) : null, photo.license || null].filter(Boolean).join(' · ');
}

export class AlbumView {
  /** `model` is the AlbumPanel: pin, album, photos, settled, busy, failure. */
  constructor(model) {
    this.model = model;
    this.panel = $('album');
    this.grid = $('album-grid');
    this.creditsList = $('album-credits-list');
    this.newButton = $('album-new');
    this.tiles = new Map();
    this.credits = new Map();
  }

  /** Forgets every photo drawn. */
  clear() {
    this.tiles.clear();
    this.credits.clear();
    this.grid.replaceChildren();
    this.creditsList.replaceChildren();
  }

  render() {
    const pin = this.model.pin;
    const album = this.model.album;
    $('album-title').textContent = pin ? placeOf(pin) : '';
    $('album-title').title = pin ? formatCoordinates(pin.latitude, pin.longitude) : '';
    const settled = this.model.settled;
    this.panel.dataset.settled = String(settled);
    this.panel.dataset.status = album ? album.status : '';
    this.panel.dataset.collection = album ? String(album.collection) : '';

    // Header: what is happening and how far along it is.
    const progress = $('album-progress');
    const meter = $('album-meter');
    const total = this.model.photos.length;
    const ready = this.model.photos.filter((p) => p.state === 'ready').length;
    const failed = this.model.photos.filter((p) => p.state === 'failed').length;
    let text;
    let fraction = null;
    if (!album) {
      text = this.panel.dataset.state === 'error' ? t('album.progress.failed') : t('album.progress.loading');
    } else if (album.status === 'searching') {
      const provider = PROVIDERS[album.provider];
      text = provider ? t('album.progress.searching', { provider }) : t('album.progress.searchingService');
      fraction = -1;
    } else if (!settled && total > 0) {
      text = t('album.progress.downloading', { ready, total });
      fraction = total ? (ready + failed) / total : 0;
    } else if (total === 0) {
      text = album.status === 'failed' ? t('album.progress.noPhotosYet') : t('album.progress.noPhotos');
    } else {
      text = failed ? t('album.progress.readyFailed', { ready, failed }) : t('album.progress.ready', { ready });
    }
    if (this.panel.dataset.live === 'reconnecting') text = t('album.progress.reconnecting', { progress: text });
    progress.textContent = text;
    meter.hidden = fraction === null;
    meter.classList.toggle('indeterminate', fraction === -1);
    if (fraction !== null && fraction >= 0) meter.firstElementChild.style.width = `${Math.round(fraction * 100)}%`;

    // The failure of the last search (the kept photos stay).
    const banner = $('album-banner');
    const problem = this.model.failure || (album && album.error && total > 0 ? t('album.banner.newFailed', { reason: album.error.message }) : null);
    banner.textContent = problem || '';
    banner.hidden = !problem;

    this.renderGrid(settled);
    this.renderEmpty(album, total);
    this.renderCredits();

    // Footer: New Collection waits until the album is settled.
    const canReplace = Boolean(album) && settled && !this.model.busy;
    if (!this.model.busy) {
      this.newButton.disabled = !canReplace;
      this.newButton.querySelector('.button-label').textContent =
        album && total === 0 && album.status === 'failed' ? t('album.new.retry') : t('album.new.label');
    }
    const hint = $('album-hint');
    if (!album) hint.textContent = '';
    else if (this.model.busy) hint.textContent = t('album.hint.asking');
    else if (!settled) hint.textContent = t('album.hint.wait');
    else if (total > 0) hint.textContent = t('album.hint.remove');
    else hint.textContent = '';
  }

  renderGrid(settled) {
    const wanted = [];
    const seen = new Set();
    for (const photo of this.model.photos) {
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
      el('span', { class: 'photo-caption', dir: 'auto' }),
    ]);
    return el('li', { class: 'photo', dataset: { id: photo.id } }, [button]);
  }

  updateTile(tile, photo, settled) {
    const button = tile.firstElementChild;
    const credit = [photo.title, byline(photo)].filter(Boolean).join(' · ');
    button.title = settled ? t('album.photo.removeTitle', { credit }) : credit;
    const title = photo.title || t('album.photo.untitled');
    button.setAttribute('aria-label', settled ? t('album.photo.removeLabel', { title }) : t('album.photo.label', { title }));
    button.setAttribute('aria-disabled', String(!settled || tile.classList.contains('removing')));
    tile.querySelector('.photo-caption').textContent = photo.author || '';
    tile.dataset.photoState = photo.state;

    if (photo.state === 'ready' && photo.imageURL) {
      const src = photo.imageURL;
      if (tile.dataset.src === src) {
        const image = button.querySelector('.photo-image');
        if (image && !photo.title) image.alt = t('album.photo.alt');
        if (tile.dataset.state === 'broken') this.showFailed(tile, t('album.photo.unavailable'));
        return;
      }
      tile.dataset.src = src;
      // The image replaces the placeholder only once it is decoded, so it appears whole.
      const image = new Image();
      image.className = 'photo-image';
      image.alt = photo.title || t('album.photo.alt');
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
        this.showFailed(tile, t('album.photo.unavailable'));
      });
      return;
    }
    delete tile.dataset.src;
    if (photo.state === 'failed') {
      tile.dataset.state = 'failed';
      this.showFailed(tile, t('album.photo.notDownloaded'));
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
    const shown = button.querySelector('.photo-failed');
    if (shown && shown.textContent === label) return;
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
      retry = el('button', { class: 'photo-retry', type: 'button' }, [icon(RETRY)]);
      tile.append(retry);
    }
    retry.setAttribute('aria-label', t('album.retry.label'));
    retry.title = reason ? t('album.retry.titleWithReason', { reason }) : t('album.retry.title');
  }

  renderEmpty(album, total) {
    const box = $('album-empty');
    let title = null;
    let text = '';
    let kind = 'photos';
    if (this.panel.dataset.state === 'error') {
      title = t('album.empty.loadFailed');
      text = this.model.failure || '';
      kind = 'error';
    } else if (album && total === 0) {
      if (album.status === 'searching') {
        title = t('album.empty.searching');
        text = t('album.empty.searchingText');
        kind = 'searching';
      } else if (album.status === 'failed' && album.error) {
        title = t('album.empty.notFound');
        text = album.error.message;
        kind = 'error';
      } else if (album.settled) {
        const provider = PROVIDERS[album.provider];
        title = t('album.empty.none');
        text = provider ? t('album.empty.noneText', { provider }) : t('album.empty.noneTextService');
      }
    } else if (!album && this.panel.dataset.state === 'loading' && total === 0) {
      title = t('album.empty.loading');
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
    for (const photo of this.model.photos) {
      seen.add(photo.id);
      // The language is part of the key: a credit's "by" and link title are written in it.
      const key = `${photo.id}|${photo.title}|${photo.author}|${photo.license}|${photo.attributionURL}|${language()}`;
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
    const provider = this.model.album && PROVIDERS[this.model.album.provider];
    $('album-credits-title').textContent = provider ? t('album.credits.titleProvider', { provider }) : t('album.credits.title');
  }

  buildCredit(photo) {
    const href = safeURL(photo.attributionURL);
    const title = photo.title || t('album.credit.untitled');
    const name = href
      ? el('a', { class: 'credit-title', href, target: '_blank', rel: 'noopener noreferrer', dir: 'auto', title: t('album.credit.linkTitle', { title, host: linkHost(href) }), text: title })
      : el('span', { class: 'credit-title', dir: 'auto', text: title });
    const details = byline(photo);
    return el('li', { class: 'credit', dataset: { id: photo.id } }, [
      name,
      details ? el('span', { class: 'credit-details', text: details }) : null,
    ]);
  }
}
