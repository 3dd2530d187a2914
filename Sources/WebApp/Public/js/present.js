// The present view: a class's map for the classroom projector (`#/c/<slug>/present`, from the
// Classes sheet), and the same map framed by another site (`/embed/<slug>`, js/embed.js).
// Read-only: large pins, each student's name beside the pin, the count, live changes; nothing
// to post, edit or moderate. In the app it takes the whole screen where the browser lets it
// (the Fullscreen API), the whole window otherwise; Escape or Leave closes it. An embed reads
// everything with no session (credentials omitted), so it shows only what anyone may read.
import { StudentMap } from './map.js';
import { LiveUpdates } from './live.js';
import { fetchConfig, fetchWorld } from './api.js';
import { t, onLanguageChange } from './i18n.js';
import { el } from './ui.js';
import { readMapColumns, MAP_COLUMNS_TYPE } from './mapColumns.js';

const FULLSCREEN_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" fill="none" stroke="currentColor" stroke-width="2"/></svg>';
const LEAVE_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="m6.4 5 5.6 5.6L17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4 6.4 5Z"/></svg>';

/** The address of the present view of class `slug`, as router.js's go() takes it. */
export function presentAddress(slug) {
  return `c/${slug}/present`;
}

/** Asks for `path` on this server (`anonymous`: without the session's cookies); throws an
 *  error with the status when the answer is not a success. */
async function answer(path, anonymous, accept) {
  const response = await fetch(path, { credentials: anonymous ? 'omit' : 'same-origin', headers: { Accept: accept } });
  if (!response.ok) {
    const error = new Error(`${path}: HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return response;
}

/** Reads `path` on this server as JSON (`binary`: as the binary map layout, mapColumns.js);
 *  `anonymous`: without the session's cookies. */
async function read(path, anonymous, { binary = false } = {}) {
  const response = await answer(path, anonymous, binary ? MAP_COLUMNS_TYPE : 'application/json');
  return binary ? readMapColumns(await response.arrayBuffer()) : response.json();
}

/** Answers that mean the map is not this reader's to see (any more). */
const REFUSED = new Set([401, 403, 404]);
/** A withdrawn map asks whether it is shared again this much later, doubling to the last:
 *  a class made public again comes back on a projector or another site's page by itself. */
const RETURN_FIRST_MS = 2000;
const RETURN_LAST_MS = 60000;

export class PresentView {
  /**
   * @param {HTMLElement} root  where the view is drawn (emptied)
   * @param {object} options
   * @param {string} options.slug  the class
   * @param {boolean} [options.embed]  framed by another site: no Leave, no full screen, no session
   * @param {() => void} [options.leave]  closes the view (Leave, Escape, the end of full screen)
   */
  constructor(root, { slug, embed = false, leave = null }) {
    this.root = root;
    this.slug = slug;
    this.embed = embed;
    this.leave = leave;
    this.count = null;
    this.name = null;
    this.map = null;
    this.closed = false;
    this.returnTimer = null;
    this.returnDelay = RETURN_FIRST_MS;
    root.classList.add('present');
    if (embed) root.classList.add('present-embed');
    root.dataset.slug = slug;

    this.title = el('h1', { class: 'present-title', dir: 'auto' });
    this.counter = el('p', { class: 'present-count', role: 'status', 'aria-live': 'polite' });
    this.indicator = el('span', { class: 'live-indicator present-live', role: 'status', dataset: { state: 'off' } }, [
      el('span', { class: 'live-dot', 'aria-hidden': 'true' }),
      el('span', { class: 'live-text', 'aria-hidden': 'true' }),
    ]);
    const buttons = [];
    if (!embed) {
      this.fullButton = el('button', { type: 'button', class: 'present-button present-fullscreen' });
      this.fullButton.innerHTML = FULLSCREEN_ICON;
      this.fullButton.addEventListener('click', () => this.enterFullscreen());
      this.fullButton.hidden = !document.fullscreenEnabled;
      this.leaveButton = el('button', { type: 'button', class: 'present-button present-leave' });
      this.leaveButton.innerHTML = LEAVE_ICON;
      this.leaveButton.append(el('span', { class: 'present-leave-label' }));
      this.leaveButton.addEventListener('click', () => this.close());
      buttons.push(this.fullButton, this.leaveButton);
    }
    this.status = el('p', { class: 'present-status', role: 'alert', hidden: true });
    this.container = el('div', { class: 'map present-map' });
    root.replaceChildren(
      el('div', { class: 'present-bar' }, [this.title, this.counter, this.indicator, ...buttons]),
      this.container,
      this.status,
    );
    this.translate();
    this.stopTranslating = onLanguageChange(() => this.translate());

    this.live = new LiveUpdates({
      indicator: this.indicator,
      map: () => this.map,
      list: () => null,
      ownKey: () => null,
      reload: () => this.load(),
      counted: (count) => {
        this.showCount(count);
        this.keepEveryoneInView();
      },
      changes: `/c/${slug}/api/locations/changes`,
      quiet: true,
      lost: () => this.recheck(),
    });
    this.onKey = (event) => {
      if (event.key === 'Escape' && !event.defaultPrevented) this.close();
    };
    this.onFullscreen = () => {
      // Escape in full screen is the browser's: it ends full screen, and that ends the view.
      if (this.wasFullscreen && !document.fullscreenElement) this.close();
      this.wasFullscreen = Boolean(document.fullscreenElement);
      if (this.fullButton) this.fullButton.hidden = !document.fullscreenEnabled || this.wasFullscreen;
      if (this.map) this.map.invalidateSize();
    };
    // Another size (a phone turned, the projector's window): everyone in view again.
    this.onResize = () => requestAnimationFrame(() => {
      if (!this.map || this.closed) return;
      this.map.invalidateSize();
      if (!this.map.viewChosen && this.count) this.map.fitToStudents();
    });
    window.addEventListener('resize', this.onResize);
    if (!embed) {
      document.addEventListener('keydown', this.onKey);
      document.addEventListener('fullscreenchange', this.onFullscreen);
    }
  }

  translate() {
    this.title.textContent = this.name || '';
    // The embed is a page of its own: its title names the class ("Geography · On the Map").
    if (this.embed && this.name) document.title = t('app.pageTitle', { page: this.name });
    if (this.count !== null) this.counter.textContent = t('students.count', { count: this.count });
    this.indicator.querySelector('.live-text').textContent = t('live.badge');
    this.container.setAttribute('aria-label', this.name ? t('present.mapOf', { class: this.name }) : t('map.label'));
    if (this.fullButton) {
      this.fullButton.title = t('present.fullScreen');
      this.fullButton.setAttribute('aria-label', t('present.fullScreen'));
    }
    if (this.leaveButton) {
      this.leaveButton.querySelector('.present-leave-label').textContent = t('present.leave');
      this.leaveButton.title = t('present.leaveHint');
    }
    if (this.failed) this.status.textContent = t('present.failed');
    if (this.withdrawn) this.status.textContent = t('present.withdrawn');
  }

  /** A post that arrived outside the view brings everyone into it again (unless the viewer
   *  moved the map themselves). */
  keepEveryoneInView() {
    if (!this.map || this.map.viewChosen) return;
    const view = this.map.map.getBounds();
    if (this.map.clusters.index.points.some((point) => point && !view.contains([point.latitude, point.longitude]))) {
      this.map.fitToStudents();
    }
  }

  showCount(count) {
    this.count = count;
    this.root.dataset.count = String(count);
    this.counter.textContent = t('students.count', { count });
  }

  /** Full screen where the browser allows it now (after a click or a key); otherwise the view
   *  keeps the whole window, and its button asks again. */
  enterFullscreen() {
    if (this.embed || !document.fullscreenEnabled || document.fullscreenElement) return;
    this.root.requestFullscreen().catch(() => {});
  }

  /** Draws the class: its name, its map and its pins, then follows its changes. */
  async start() {
    const anonymous = this.embed;
    const [config, world] = await Promise.all([fetchConfig(), fetchWorld()]);
    if (this.closed) return;
    this.map = new StudentMap(this.container, config, { names: true, readOnly: true });
    this.map.setBasemap(config, world);
    this.readName();
    await this.load();
  }

  /** The class's name, for the title, once it arrives. */
  readName() {
    read(`/api/classes/${this.slug}`, this.embed).then((detail) => {
      if (detail && typeof detail.name === 'string' && !this.closed && !this.withdrawn) {
        this.name = detail.name;
        this.translate();
      }
    }, () => {});
  }

  /** The class's map as this reader may see it: the map layout in binary, as the main map
   *  reads it (mapColumns.js checks it). */
  snapshot() {
    return read(this.snapshotPath(), this.embed, { binary: true });
  }

  snapshotPath() {
    return `/c/${this.slug}/api/locations/snapshot/map.bin`;
  }

  /** Whether the server still answers this reader the map: resolves if it does, throws its
   *  refusal (with the status) or the network's error. The map itself is not downloaded. */
  async probe() {
    const response = await answer(this.snapshotPath(), this.embed, MAP_COLUMNS_TYPE);
    if (response.body) response.body.cancel().catch(() => {});
  }

  async load() {
    this.live.stop();
    let snapshot;
    try {
      snapshot = await this.snapshot();
    } catch (error) {
      if (this.closed) return;
      if (REFUSED.has(error.status)) {
        this.withdraw();
        return;
      }
      this.failed = true;
      this.status.hidden = false;
      this.status.textContent = t('present.failed');
      this.root.dataset.state = 'failed';
      return;
    }
    if (this.closed) return;
    this.failed = false;
    this.status.hidden = true;
    const count = await this.map.setLocations(snapshot);
    if (this.closed) return;
    this.map.fitToStudents();
    this.showCount(count);
    this.root.dataset.state = 'ready';
    this.live.follow(snapshot.version);
  }

  /** The stream failed for good. When the server now refuses this reader the map (the class
   *  went members-only, or the reader's access ended), what the view showed goes at once;
   *  otherwise (the server away, a proxy's error) it stays, and the stream is tried again. */
  async recheck() {
    try {
      await this.probe();
    } catch (error) {
      if (!this.closed && REFUSED.has(error.status)) this.withdraw();
    }
  }

  /** Nothing of the class stays on screen: no pins, no names, no count; the view says the map
   *  is not shared with it any more. */
  withdraw() {
    this.live.stop();
    this.map.beginLoad();
    this.map.finishLoad();
    this.name = null;
    this.count = null;
    delete this.root.dataset.count;
    this.counter.textContent = '';
    this.title.textContent = '';
    if (this.embed) document.title = t('app.title');
    this.failed = false;
    this.withdrawn = true;
    this.status.hidden = false;
    this.status.textContent = t('present.withdrawn');
    this.root.dataset.state = 'withdrawn';
    this.awaitReturn();
  }

  /** Asks later whether the map is shared again (the class made public again, the reader's
   *  access back): then it is drawn again, with its name and its live changes. */
  awaitReturn() {
    clearTimeout(this.returnTimer);
    this.returnTimer = setTimeout(async () => {
      if (this.closed || !this.withdrawn) return;
      try {
        await this.probe();
      } catch {
        // Still refused, or the server away: ask again later.
        this.returnDelay = Math.min(this.returnDelay * 2, RETURN_LAST_MS);
        if (!this.closed) this.awaitReturn();
        return;
      }
      if (this.closed) return;
      this.returnDelay = RETURN_FIRST_MS;
      this.withdrawn = false;
      this.readName();
      await this.load();
    }, this.returnDelay);
  }

  /** Ends the view: its stream, its full screen, its listeners; then `leave`. */
  close() {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.returnTimer);
    this.live.stop();
    document.removeEventListener('keydown', this.onKey);
    window.removeEventListener('resize', this.onResize);
    document.removeEventListener('fullscreenchange', this.onFullscreen);
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    if (this.stopTranslating) this.stopTranslating();
    if (this.map) this.map.map.remove();
    if (this.leave) this.leave();
  }
}

let shown = null;
/** The app's parts made inert under the view (nothing under it is reached by Tab or a reader). */
let covered = [];

function uncover() {
  const root = document.getElementById('present-scene');
  if (root) {
    root.hidden = true;
    root.replaceChildren();
  }
  for (const element of covered) element.inert = false;
  covered = [];
  document.documentElement.classList.remove('presenting');
}

/** Shows class `slug`'s present view over the app; `leave` goes back (to its map). */
export function showPresent(slug, leave) {
  if (shown && shown.slug === slug && !shown.closed) return;
  if (shown) hidePresent();
  let root = document.getElementById('present-scene');
  if (!root) {
    root = el('div', { id: 'present-scene' });
    document.body.append(root);
  }
  root.hidden = false;
  document.documentElement.classList.add('presenting');
  covered = [...document.body.children].filter((element) => element !== root && !element.inert);
  for (const element of covered) element.inert = true;
  const view = new PresentView(root, {
    slug,
    leave: () => {
      if (shown === view) shown = null;
      uncover();
      leave();
    },
  });
  shown = view;
  view.enterFullscreen();
  if (view.leaveButton) view.leaveButton.focus();
  view.start().catch(() => {});
}

/** Closes the present view when the address leaves it (Back, a link). */
export function hidePresent() {
  if (!shown) return;
  const view = shown;
  shown = null;
  view.leave = uncover;
  view.close();
}
