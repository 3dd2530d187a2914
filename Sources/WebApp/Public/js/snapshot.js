// The live map's snapshot: every location in one answer. index.html also loads this module
// on its own (async, no imports), so a signed-in student's download starts while the rest
// of the app is still arriving. The page keeps the last snapshot on the device itself and
// falls back to it with no network; the service worker stays out of
// the way (copying 20 MB before answering cost 0.4 s at 100,000 locations).

/** The map's layout of the snapshot: one array per field it draws. */
const SNAPSHOT = '/api/locations/snapshot/map';
/** sw.js's cache of the account's answers: there while a session is (js/keptSession.js). */
const KEPT = 'onthemap-data-v1';
const KEPT_AT = 'X-OnTheMap-Kept-At';
const ACCOUNT_STORAGE = 'onthemap.account';
const COLUMNS = ['firstName', 'lastName', 'latitude', 'longitude', 'mapString', 'mediaURL', 'objectId', 'uniqueKey'];

function accountKey() {
  try {
    const account = JSON.parse(localStorage.getItem(ACCOUNT_STORAGE) || 'null');
    return account && typeof account.key === 'string' ? account.key : null;
  } catch {
    return null;
  }
}

function request(signal) {
  return fetch(SNAPSHOT, { credentials: 'same-origin', signal });
}

/** The download started as the page opened, until the map takes it. */
let early = accountKey() && !/^#\/?(login|signup|signed-in)\b/.test(location.hash) ? request() : null;
// Not taken (a failed network, say): no unhandled rejection.
if (early) early.catch(() => {});

/**
 * Every location, newest first: `{ columns, version, count, keptAt }` (`columns.latitude[i]`
 * is the i-th location's latitude, and so on), where keptAt is null
 * for the server's answer and the date of the kept copy when there was no network. Throws
 * when the server has no snapshot (an older one) so the caller can page instead.
 */
export async function fetchSnapshot({ signal } = {}) {
  const pending = early;
  early = null;
  let response;
  try {
    response = await (pending || request(signal));
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    const kept = await keptCopy();
    if (!kept) throw error;
    return kept;
  }
  if (!response.ok) throw new Error(`snapshot: ${response.status}`);
  const blob = await response.blob();
  const body = parse(await blob.text());
  keep(blob, accountKey());
  return { ...body, keptAt: null };
}

function parse(text) {
  const body = JSON.parse(text);
  const columns = body && body.columns;
  const ok = columns && typeof body.version === 'number' && Number.isInteger(body.count) &&
    COLUMNS.every((name) => Array.isArray(columns[name]) && columns[name].length === body.count);
  if (!ok) throw new Error('snapshot: unexpected answer');
  return body;
}

/** Keeps the answer for offline use (the browser writes it off the main thread while the map
 *  is drawn), unless the student changed (logged out) meanwhile. */
async function keep(blob, key) {
  if (!self.caches || !key) return;
  try {
    if (!(await caches.has(KEPT))) return; // the session ended meanwhile
    const cache = await caches.open(KEPT);
    if (accountKey() !== key) return;
    const headers = { 'Content-Type': 'application/json; charset=utf-8', [KEPT_AT]: new Date().toISOString() };
    await cache.put(SNAPSHOT, new Response(blob, { headers }));
  } catch {
    // No room on the device: the app still works online.
  }
}

async function keptCopy() {
  if (!self.caches || !accountKey()) return null;
  try {
    const kept = await caches.match(SNAPSHOT, { cacheName: KEPT });
    if (!kept) return null;
    return { ...parse(await kept.text()), keptAt: kept.headers.get(KEPT_AT) || 'unknown' };
  } catch {
    return null;
  }
}
