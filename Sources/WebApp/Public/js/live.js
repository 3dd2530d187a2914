// The live map: one snapshot of every location, then every change as it happens
// (Server-Sent Events from the snapshot's version), applied to the map and the list
// through their small live hooks; a discreet indicator says whether changes are flowing.
// The stream is the shown class's (currentClass.js); a switch stops it, and the new class's
// snapshot starts the next.
import { classPath } from './currentClass.js';
import { t, onLanguageChange } from './i18n.js';
import { noteServerAnswered, noteStreamLost, onConnectionChange } from './connection.js';
import { keptLocationsChanged } from './keptSession.js';

const CHANGES = '/api/locations/changes';
/** After the stream fails for good (an HTTP error), try again this much later, doubling. */
const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30000;

export class LiveUpdates {
  /**
   * @param {object} hooks
   * @param {HTMLElement} hooks.indicator  the live indicator
   * @param {() => object|null} hooks.map   the StudentMap, once built
   * @param {() => object|null} hooks.list  the List tab's LocationList
   * @param {() => string|null} hooks.ownKey the signed-in account's key
   * @param {() => void} hooks.reload        loads everything again (the server said we are too far behind)
   * @param {(count: number) => void} hooks.counted  the map's marker count changed
   * @param {string} [hooks.changes]  the stream's path (a class's own, for the present view and
   *   an embed); the shown class's when not given
   * @param {boolean} [hooks.quiet]  tells the rest of the page nothing (a second map of the class)
   * @param {() => void} [hooks.lost]  the stream failed for good (an HTTP error, such as a
   *   refusal once the reader's access ended); it is tried again later all the same
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.source = null;
    this.version = null;
    this.retryDelay = FIRST_RETRY_MS;
    this.retryTimer = null;
    this.setState('off');
    // Another language: the indicator's name says the same in it.
    onLanguageChange(() => this.setState(this.state));
    // A page being left closes its stream at once. Otherwise the browser keeps the page (and
    // its connection) for going back, and after six reloads every one of the six connections
    // a browser opens to one server is such a stream: the next load waits about a minute.
    window.addEventListener('pagehide', () => {
      if (this.source) this.source.close();
      this.source = null;
    });
    window.addEventListener('pageshow', (event) => {
      if (event.persisted && this.version !== null && !this.source) this.open();
    });
    // The server is back (connection.js asked it): the stream reconnects now, not after its
    // own wait.
    onConnectionChange((offline) => {
      if (!offline && this.version !== null && this.state !== 'live') this.open();
    });
  }

  /** Follows changes after `version` (a snapshot's); a no-op when already there. */
  follow(version) {
    if (typeof version !== 'number') return;
    if (this.source && this.version === version) return;
    this.version = version;
    this.open();
  }

  stop() {
    clearTimeout(this.retryTimer);
    if (this.source) this.source.close();
    this.source = null;
    this.version = null;
    this.setState('off');
  }

  open() {
    clearTimeout(this.retryTimer);
    if (this.source) this.source.close();
    this.setState('connecting');
    // EventSource resumes by itself after a drop (it sends Last-Event-ID); `since` is only
    // where this connection begins.
    const source = new EventSource(`${this.hooks.changes || classPath(CHANGES)}?since=${this.version}`);
    this.source = source;
    source.addEventListener('open', () => {
      this.retryDelay = FIRST_RETRY_MS;
      this.setState('live');
      if (!this.hooks.quiet) noteServerAnswered();
    });
    source.addEventListener('error', () => {
      if (this.source !== source) return;
      // Ended, or the server is gone: connection.js finds out which, and says so at once.
      if (!this.hooks.quiet) noteStreamLost();
      if (source.readyState === EventSource.CLOSED) {
        // An HTTP error (a proxy's 502, say, or a refusal): EventSource gives up, so we try again.
        this.setState('offline');
        if (this.hooks.lost) this.hooks.lost();
        this.retryTimer = setTimeout(() => this.open(), this.retryDelay);
        this.retryDelay = Math.min(this.retryDelay * 2, LAST_RETRY_MS);
      } else {
        this.setState('connecting');
      }
    });
    for (const kind of ['created', 'updated', 'deleted']) {
      source.addEventListener(kind, (event) => {
        if (this.source !== source) return;
        let record;
        try { record = JSON.parse(event.data); } catch { return; }
        const version = Number(event.lastEventId);
        if (Number.isFinite(version)) this.version = version;
        this.apply(kind, record);
      });
    }
    source.addEventListener('reload', () => {
      if (this.source !== source) return;
      source.close();
      this.source = null;
      this.hooks.reload();
    });
  }

  apply(kind, record) {
    if (!record || typeof record.objectId !== 'string') return;
    const map = this.hooks.map();
    const list = this.hooks.list();
    // Whether it is the signed-in student's own post (approval.js asks about it again); a
    // deleted one says so only through the row it had.
    const ownKey = this.hooks.ownKey();
    const row = kind === 'deleted' && list ? list.rowFor(record.objectId) : null;
    const own = kind === 'deleted' ? Boolean(row && row.dataset.own) : Boolean(ownKey && record.uniqueKey === ownKey);
    if (kind === 'deleted') {
      if (map) map.removeLocation(record.objectId);
      if (list) list.removeLive(record.objectId);
    } else {
      if (map) map.upsertLocation(record, this.hooks.ownKey());
      if (list) list.upsertLive(record);
    }
    if (map) this.hooks.counted(map.markerCount);
    // The student's own post as the server keeps it (its place as the class shows it): what
    // the device kept follows (api.js changed it already as the write answered).
    if (this.hooks.quiet) return;
    if (own) keptLocationsChanged(classPath(''), kind === 'deleted' ? { deleted: record.objectId } : { location: record });
    document.dispatchEvent(new CustomEvent('onthemap:live-change', { detail: { kind, objectId: record.objectId, own } }));
  }

  setState(name) {
    const indicator = this.hooks.indicator;
    if (!indicator) return;
    this.state = name;
    const label = {
      off: () => t('live.state.off'),
      connecting: () => t('live.state.connecting'),
      live: () => t('live.state.live'),
      offline: () => t('live.state.offline'),
    }[name]();
    indicator.dataset.state = name;
    indicator.setAttribute('aria-label', label);
    indicator.title = label;
  }
}
