// The live map's snapshot: every location in one answer. index.html also loads this module
// on its own (async; its one import, mapColumns.js, is preloaded beside it), so a signed-in
// student's download starts while the rest of the app is still arriving. The page keeps the
// last snapshot on the device itself, one per class, and falls back to it with no network;
// the service worker stays out of the way (copying 20 MB before answering cost 0.4 s at
// 100,000 locations).
import { readMapColumns, MAP_COLUMNS_TYPE } from './mapColumns.js';

/** The map's layout of the snapshot in binary (mapColumns.js): one typed array per field it
 *  draws, viewed in place. */
const SNAPSHOT = '/api/locations/snapshot/map.bin';
/** sw.js's cache of the account's answers: there while a session is (js/keptSession.js). */
const KEPT = 'onthemap-data-v1';
const KEPT_AT = 'X-OnTheMap-Kept-At';
const ACCOUNT_STORAGE = 'onthemap.account';

function accountKey() {
  try {
    const account = JSON.parse(localStorage.getItem(ACCOUNT_STORAGE) || 'null');
    return account && typeof account.key === 'string' ? account.key : null;
  } catch {
    return null;
  }
}

/** The snapshot's address for class `slug` (`/c/<slug>/…`; null: the default class). The
 *  kept copy is kept under it too, so each class has its own. */
function snapshotURL(slug) {
  return slug ? `/c/${slug}${SNAPSHOT}` : SNAPSHOT;
}

/** The class the address names, read as currentClass.js does (this file imports nothing). */
function classInAddress() {
  const match = /^#?\/?c\/([a-z0-9-]{1,40})(?:\/|$)/.exec(location.hash);
  return match ? match[1] : null;
}

function request(url, signal) {
  return fetch(url, { credentials: 'same-origin', signal });
}

/** The download started as the page opened, until the map takes it; `url` says whose it is.
 *  Pages without the map (logging in, an invitation, a class's settings) start none. */
const SHOWS_NO_MAP = /^#\/?(login|signup|forgot|signed-in|join\/|classes\/|c\/[^/]+\/settings)/;
let early = null;
if (accountKey() && !SHOWS_NO_MAP.test(location.hash)) {
  const url = snapshotURL(classInAddress());
  early = { url, response: request(url) };
  // Not taken (a failed network, say): no unhandled rejection.
  early.response.catch(() => {});
}

/**
 * Every location of class `classSlug` (null: the default class), newest first:
 * `{ columns, version, count, teachers, timeZones, keptAt }` (`columns.latitude.at(i)` is the
 * i-th location's latitude, and so on: mapColumns.js), where keptAt is null for the server's
 * answer and the date of the kept copy when there was no network. Throws when the server has
 * no snapshot (an older one) or answers what mapColumns.js cannot read, so the caller can page
 * instead.
 */
export async function fetchSnapshot({ classSlug = null, signal } = {}) {
  const url = snapshotURL(classSlug);
  // The early download is taken only for the class it was started for.
  const pending = early && early.url === url ? early.response : null;
  early = null;
  let response;
  try {
    response = await (pending || request(url, signal));
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    const kept = await keptCopy(url);
    if (!kept) throw error;
    return kept;
  }
  if (!response.ok) throw new Error(`snapshot: ${response.status}`);
  const blob = await response.blob();
  const body = readMapColumns(await blob.arrayBuffer());
  keep(url, blob, accountKey());
  return { ...body, keptAt: null };
}

/** Keeps the answer for offline use (the browser writes it off the main thread while the map
 *  is drawn), unless the student changed (logged out) meanwhile. */
async function keep(url, blob, key) {
  if (!self.caches || !key) return;
  try {
    if (!(await caches.has(KEPT))) return; // the session ended meanwhile
    const cache = await caches.open(KEPT);
    if (accountKey() !== key) return;
    const headers = { 'Content-Type': MAP_COLUMNS_TYPE, [KEPT_AT]: new Date().toISOString() };
    await cache.put(url, new Response(blob, { headers }));
  } catch {
    // No room on the device: the app still works online.
  }
}

async function keptCopy(url) {
  if (!self.caches || !accountKey()) return null;
  try {
    const kept = await caches.match(url, { cacheName: KEPT });
    if (!kept) return null;
    return { ...readMapColumns(await kept.arrayBuffer()), keptAt: kept.headers.get(KEPT_AT) || 'unknown' };
  } catch {
    return null;
  }
}
