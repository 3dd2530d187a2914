// Whether the server can be reached, and the banner that says so. Offline, the service
// worker (sw.js) answers from the copies it kept and marks them; api.js reports each answer
// here. Writes are refused while offline, never queued (see refuseWhileOffline).
import { showAlert } from './ui.js';
import { t, onLanguageChange, formatDate } from './i18n.js';

export const FROM_CACHE_HEADER = 'X-OnTheMap-Offline';

const connection = {
  /** The last answer came from the kept copy, or the browser says it has no network. */
  offline: !navigator.onLine,
  /** When the kept copy shown was fetched (a Date), if known. */
  keptAt: null,
  /** The signed-in scenes show (a kept copy offline), not the login scene. */
  signedIn: true,
};
const listeners = new Set();

export function isOffline() {
  return connection.offline;
}

/** Calls `listener(offline)` whenever the connection comes or goes. */
export function onConnectionChange(listener) {
  listeners.add(listener);
}

function set(offline, keptAt = null) {
  const changed = offline !== connection.offline;
  connection.offline = offline;
  if (keptAt) connection.keptAt = keptAt;
  render();
  if (changed) for (const listener of listeners) listener(offline);
}

/** api.js: an answer arrived; `cachedAt` is the kept copy's date header, or null when live. */
export function noteAnswer(cachedAt) {
  if (cachedAt === null) {
    set(!navigator.onLine);
    return;
  }
  const date = new Date(cachedAt);
  set(true, Number.isNaN(date.getTime()) ? null : date);
}

/** api.js: the request got no answer at all (no network, no kept copy). */
export function noteNoAnswer() {
  set(true);
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
  banner.hidden = !connection.offline;
  if (!connection.offline) return;
  if (!connection.signedIn) {
    document.getElementById('offline-text').textContent = t('offline.loggedOut');
    return;
  }
  document.getElementById('offline-text').textContent = connection.keptAt
    ? t('offline.keptAsOf', { date: formatDate(connection.keptAt, { dateStyle: 'medium', timeStyle: 'short' }) })
    : t('offline.kept');
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

window.addEventListener('online', () => set(false));
window.addEventListener('offline', () => set(true));
document.addEventListener('DOMContentLoaded', render);
