// The account this device keeps between visits, and what was kept for it: sw.js's data
// cache (the last map snapshot, list, Travel pins and albums) and the account record here.
// The session cookie is HttpOnly, so the page cannot see it; this module decides when the
// kept account, and so its kept copy, may be shown.
//
// Which session can the page prove, above all when it starts without a connection?
//
// Offline nothing proves that the server still holds the session: only the server knows.
// The page shows the kept copy only for a session this browser can vouch for, that is:
//   1. The last word from the server about it was yes. The record is written when a login
//      answers (or /api/auth/me does, after a provider's sign-in), and it is deleted, with
//      everything kept, at a logout and at any 401 from our API, the server's "no such
//      session" (api.js, session.js). While the app is open and online it asks the server
//      (sessionWatch.js: at start, when it comes back into view or online, and every
//      minute), so a session ended elsewhere (logging out of all devices, an administrator
//      disabling the account, a password reset) is found out before the device goes offline.
//   2. It has not expired: the session's expiration, as the login answer gave it
//      (`session.expiration`), is still ahead.
//   3. The browser still holds the session cookie. The server sets the XSRF-TOKEN cookie,
//      which scripts can read, together with the session cookie, with the same expiry, and
//      clears both at a logout: without it the browser has dropped the session cookie
//      (expired, cleared with the browser's data), so no request of this page carries a
//      session. This also bounds sessions whose expiration the page never heard (provider
//      sign-ins).
// When any of these fails, the record and the kept copy are deleted and the login screen
// shows (saying when the app is offline). What stays unknowable: a session ended elsewhere
// while this device could not reach the server, or while the app was closed. Its kept copy
// shows until the device reaches the server again, and never after the session's expiry;
// closing that gap would mean showing nothing offline at all.
//
// Unless the student said "This is a shared computer" (sharedComputer.js): then nothing is
// kept at all. The data cache is never made (and any left is deleted), and the account
// record lives in this tab's sessionStorage only, so closing the tab forgets it, and the
// browser-session cookies the server gave end when the browser closes.
import { readCookie } from './cookies.js';
import { pinsAfter, locationsAfter, snapshotAfter } from './keptData.js';
import { readMapColumns, writeMapColumns, MAP_COLUMNS_TYPE } from './mapColumns.js';

const ACCOUNT_STORAGE = 'onthemap.account';
/** sw.js's cache of the account's answers (snapshot.js and sw.js name it too). It exists only
 *  while an account is signed in: made at login, deleted when the session ends; sw.js and
 *  snapshot.js keep nothing when it is not there. */
const DATA_CACHE = 'onthemap-data-v1';
/** The script-readable cookie that comes and goes with the session cookie. */
const SESSION_COOKIE_SHADOW = 'XSRF-TOKEN';

/** Cache deletions and creations run one after another, in the order asked. */
let cacheWork = Promise.resolve();

function queued(work) {
  cacheWork = cacheWork.then(work).catch(() => {
    // No cache storage here (a plain-http host), or no room: nothing was kept to show.
  });
  return cacheWork;
}

function readFrom(storage) {
  try {
    const account = JSON.parse(storage.getItem(ACCOUNT_STORAGE) || 'null');
    return account && typeof account.key === 'string' ? account : null;
  } catch {
    return null;
  }
}

/** The kept record: this device's (localStorage), else this tab's (a shared computer's). */
function readRecord() {
  return readFrom(localStorage) || readFrom(sessionStorage);
}

function forgetRecord() {
  for (const storage of [localStorage, sessionStorage]) {
    try { storage.removeItem(ACCOUNT_STORAGE); } catch { /* no storage: nothing kept there */ }
  }
}

/** Whether `record` belongs to a session this browser can still vouch for (rules 2 and 3
 *  above; rule 1 is the record being there at all). */
function provable(record) {
  if (readCookie(SESSION_COOKIE_SHADOW) === null) return false;
  if (record.expiresAt) {
    const expiry = Date.parse(record.expiresAt);
    if (Number.isNaN(expiry) || expiry <= Date.now()) return false;
  }
  return true;
}

/** The account signed in on this device, or null. A kept account whose session cannot be
 *  vouched for is forgotten here, with everything kept for it. */
export function loadKeptAccount() {
  const record = readRecord();
  if (record && provable(record)) {
    if (record.sharedComputer) dropKeptData();
    return record;
  }
  if (record) forgetRecord();
  dropKeptData();
  return null;
}

/** Remembers `account` ({ key, firstName, lastName, email, provider, expiresAt,
 *  sharedComputer }): on a shared computer for this tab only, with nothing kept for it;
 *  null forgets it and everything kept for it. */
export function keepAccount(account) {
  if (account) {
    const shared = Boolean(account.sharedComputer);
    forgetRecord();
    (shared ? sessionStorage : localStorage).setItem(ACCOUNT_STORAGE, JSON.stringify(account));
    if (shared) dropKeptData();
  } else {
    forgetRecord();
    dropKeptData();
  }
}

/** A session began: from now on sw.js keeps this account's answers. `fresh` first deletes
 *  whatever was kept before (another student who never logged out on this device).
 *  `shared` (a shared computer): nothing is kept, and whatever was is deleted. */
export function startKeptData({ fresh = true, shared = false } = {}) {
  return queued(async () => {
    if (!self.caches) return;
    if (fresh || shared) await caches.delete(DATA_CACHE);
    if (shared) return;
    await caches.open(DATA_CACHE);
  });
}

/** Deletes every answer kept for the account (sw.js's data cache and the map's snapshot). */
export function dropKeptData() {
  return queued(async () => {
    if (self.caches) await caches.delete(DATA_CACHE);
  });
}

/** Changes the kept answers so that they follow what the student changed (keptData.js):
 *  `editorFor(url)` gives, for each kept answer's URL, a function from its JSON (the map's
 *  snapshot: as readMapColumns reads it) to the changed one, or null to leave it. Each keeps
 *  the time it was kept. */
export function editKept(editorFor) {
  return queued(async () => {
    if (!self.caches || !(await caches.has(DATA_CACHE))) return;
    const cache = await caches.open(DATA_CACHE);
    for (const request of await cache.keys()) {
      const edit = editorFor(new URL(request.url));
      if (!edit) continue;
      const kept = await cache.match(request, { ignoreVary: true });
      if (!kept || !kept.ok) continue;
      // The map's snapshot is kept in its binary layout (mapColumns.js), the rest as JSON.
      const binary = (kept.headers.get('Content-Type') || '').startsWith(MAP_COLUMNS_TYPE);
      let body;
      try {
        body = binary ? readMapColumns(await kept.clone().arrayBuffer()) : await kept.clone().json();
      } catch {
        continue;
      }
      const edited = edit(body);
      if (edited === body) continue;
      const headers = new Headers(kept.headers);
      for (const name of ['Content-Length', 'Content-Encoding', 'ETag']) headers.delete(name);
      headers.set('Content-Type', binary ? MAP_COLUMNS_TYPE : 'application/json; charset=utf-8');
      const bytes = binary ? writeMapColumns(edited) : JSON.stringify(edited);
      await cache.put(request, new Response(bytes, { status: kept.status, statusText: kept.statusText, headers }));
    }
  });
}

/** A Travel pin was dropped or moved (`{ pin }`) or deleted (`{ deleted: id }`): the kept
 *  `/api/pins` follows. */
export function keptPinsChanged(change) {
  return editKept((url) => (url.pathname === '/api/pins' ? (body) => pinsAfter(body, change) : null));
}

/** The student's post in the class whose paths begin `prefix` ('' for the default class,
 *  `/c/<slug>`) was posted or moved (`{ location }`) or removed (`{ deleted: objectId }`):
 *  that class's kept list answers and map snapshot follow. */
export function keptLocationsChanged(prefix, change) {
  return editKept((url) => {
    if (url.pathname === `${prefix}/parse/classes/StudentLocation`) return (body) => locationsAfter(body, url, change);
    if (url.pathname === `${prefix}/api/locations/snapshot/map.bin`) return (body) => snapshotAfter(body, change);
    return null;
  });
}
