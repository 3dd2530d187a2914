// Whether the server can be reached, and the banner that says so: "you are offline" when
// the device has no network (the browser says so), "the server can't be reached" when the
// device is online but a request or the live stream (live.js) fails. Then the service
// worker (sw.js) answers from the copies it kept and marks them; api.js reports each answer
// here. While the server is away it is asked every few seconds (GET /health) whether it is
// back; its return clears the banner and tells the listeners (main.js reloads what is
// shown). Writes are refused while the device is offline, never queued (refuseWhileOffline).
import { showAlert } from './ui.js';
import { t, onLanguageChange, formatDate } from './i18n.js';

export const FROM_CACHE_HEADER = 'X-OnTheMap-Offline';

const connection = {
  /** The browser says the device has no network (navigator.onLine, its offline event). */
  deviceOffline: !navigator.onLine,
  /** The device is online but the server did not answer: a request or the live stream
   *  failed, or the service worker answered from its kept copy. */
  unreachable: false,
  /** When the kept copy shown was fetched (a Date), if known. */
  keptAt: null,
  /** The signed-in scenes show (a kept copy offline), not the login scene. */
  signedIn: true,
};
const listeners = new Set();

/** While the server cannot be reached, how often it is asked whether it is back. */
const HEALTH_EVERY_MS = 2000;
/** How long one such question may take. */
const HEALTH_TIMEOUT_MS = 3000;
/** A cheap answer the service worker never gives from its copies. */
const HEALTH_PATH = '/health';

/** Whether what the page shows cannot be brought up to date now: the device is offline, or
 *  the server cannot be reached. */
export function isOffline() {
  return connection.deviceOffline || connection.unreachable;
}

/** 'online', 'device' (the device has no network) or 'server' (the device is online but the
 *  server cannot be reached). */
export function connectionState() {
  if (connection.deviceOffline) return 'device';
  return connection.unreachable ? 'server' : 'online';
}

/** Calls `listener(offline)` whenever the connection comes or goes (isOffline()). */
export function onConnectionChange(listener) {
  listeners.add(listener);
}

function update(change, keptAt = null) {
  const before = isOffline();
  Object.assign(connection, change);
  if (keptAt) connection.keptAt = keptAt;
  render();
  watchForServer();
  const after = isOffline();
  if (before !== after) for (const listener of listeners) listener(after);
}

/** api.js: an answer arrived; `cachedAt` is the kept copy's date header, or null when live. */
export function noteAnswer(cachedAt) {
  if (cachedAt === null) {
    update({ deviceOffline: !navigator.onLine, unreachable: false });
    return;
  }
  const date = new Date(cachedAt);
  update({ deviceOffline: !navigator.onLine, unreachable: navigator.onLine }, Number.isNaN(date.getTime()) ? null : date);
}

/** api.js: the request got no answer at all (no network, no kept copy). */
export function noteNoAnswer() {
  update({ deviceOffline: !navigator.onLine, unreachable: navigator.onLine });
}

/** live.js: the live stream opened, so the server is there. */
export function noteServerAnswered() {
  update({ deviceOffline: !navigator.onLine, unreachable: false });
}

/** live.js: the live stream broke. It may only have ended (a stream lives a few minutes),
 *  so the server is asked at once; no answer shows the banner. */
export function noteStreamLost() {
  checkServer();
}

// ---- noticing the server's return -------------------------------------------

let checking = null;
let healthTimer = null;

/** Asks the server whether it is there (GET /health, past the service worker); the answer
 *  updates the banner. A question under way is joined. */
export function checkServer() {
  if (checking) return checking;
  if (!navigator.onLine) {
    update({ deviceOffline: true });
    return Promise.resolve(false);
  }
  checking = (async () => {
    let ok = false;
    try {
      const response = await fetch(HEALTH_PATH, { cache: 'no-store', credentials: 'omit', signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
      // Any answer from the server itself says it is there (a proxy's 502-504 does not).
      ok = response.status < 502 || response.status > 504;
    } catch {
      ok = false;
    }
    checking = null;
    update({ deviceOffline: !navigator.onLine, unreachable: navigator.onLine && !ok });
    return ok;
  })();
  return checking;
}

/** Only while the device is online and the server is not reached: ask every few seconds. */
function watchForServer() {
  const watching = !connection.deviceOffline && connection.unreachable;
  if (watching && !healthTimer) {
    healthTimer = setInterval(() => {
      // A page out of view waits; it asks again as it comes back (below).
      if (document.visibilityState === 'visible') checkServer();
    }, HEALTH_EVERY_MS);
  } else if (!watching && healthTimer) {
    clearInterval(healthTimer);
    healthTimer = null;
  }
}

/** main.js and auth.js: which scene shows, for the banner's words. */
export function showingSignedIn(signedIn) {
  connection.signedIn = signedIn;
  render();
}

// The banner's words follow the language chosen on the login card.
onLanguageChange(() => render());

function render() {
  const banner = document.getElementById('offline-banner');
  if (!banner) return;
  const state = connectionState();
  banner.hidden = state === 'online';
  banner.dataset.state = state;
  if (state === 'online') return;
  const device = state === 'device';
  const text = document.getElementById('offline-text');
  if (!connection.signedIn) {
    text.textContent = t(device ? 'offline.loggedOut' : 'offline.server.loggedOut');
    return;
  }
  text.textContent = connection.keptAt
    ? t(device ? 'offline.keptAsOf' : 'offline.server.keptAsOf', { date: formatDate(connection.keptAt, { dateStyle: 'medium', timeStyle: 'short' }) })
    : t(device ? 'offline.kept' : 'offline.server.kept');
}

/** Before a write: when the device has no network, says plainly that it cannot be done
 *  now and returns true. (A server that did not answer is tried again: that may pass.)
 *  `what` is the action, from the catalogue and capitalised ("Posting your location",
 *  "Publicar tu ubicación"): the message begins with it. */
export async function refuseWhileOffline(what) {
  if (navigator.onLine) return false;
  await showAlert(t('offline.refused.title'), t('offline.refused.message', { what }));
  return true;
}

// The device's network came back: the server may still be away, so it is asked first (the
// banner says "offline" until it answers, then clears or says the server can't be reached).
window.addEventListener('online', () => checkServer());
window.addEventListener('offline', () => update({ deviceOffline: true }));
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && connection.unreachable) checkServer();
});
document.addEventListener('DOMContentLoaded', render);
