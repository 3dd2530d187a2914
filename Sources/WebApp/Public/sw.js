// The service worker: the app opens without a connection. Every same-origin GET goes to the
// network first (so a connected student always sees the server's current files and data)
// and falls back to the copy kept here. Kept: the app shell, the last answers for each
// class's list, the list of classes, Travel pins and albums, and every album photo shown.
// Writes are never kept or replayed: the page refuses them while offline.

const SHELL = 'onthemap-shell-v1';
/** Answers that belong to the signed-in account. The page makes this cache at login and
 *  deletes it when the session ends (js/keptSession.js); while it is not there nothing is
 *  kept in it, so an answer arriving after a logout is not kept for nobody. */
const DATA = 'onthemap-data-v1';
/** Files the page does not name in index.html but needs offline. */
const EXTRA_SHELL = ['/', '/config.json', '/world.geojson', '/places.json', '/manifest.webmanifest',
  '/img/icon.svg', '/img/icon-192.png', '/img/icon-512.png', '/languages.json'];

/** Every language's catalogue (js/i18n.js): a student may choose another one offline; and
 *  the web app manifest in each but English (main.js names the page's). The languages are
 *  languages.json's, the app's one list of them. */
async function languageFiles() {
  const response = await fetch('/languages.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`languages.json: HTTP ${response.status}`);
  const languages = await response.json();
  return languages.flatMap(({ tag }) => [`/locales/${tag}.json`, ...(tag === 'en' ? [] : [`/manifest.${tag}.webmanifest`])]);
}
/** Marks an answer that came from this cache (its value: when it was kept), so the page can
 *  say it is offline and as of when. */
const FROM_CACHE = 'X-OnTheMap-Offline';
const KEPT_AT = 'X-OnTheMap-Kept-At';
/** How long after answering the app's own files are compared with (and stored in) the shell. */
const SHELL_COPY_DELAY_MS = 3000;

self.addEventListener('install', (event) => {
  // The live map's snapshot and change stream go straight to the network, not through this
  // worker: the page keeps its own copy of the snapshot (js/snapshot.js), and a worker busy
  // storing the app's files would hold the download up. (Chromium's static routing; other
  // browsers ask the fetch handler below, which lets both pass.)
  // Each class's are under its prefix (`/c/<slug>/api/locations/…`).
  if (event.addRoutes) {
    event.waitUntil(event.addRoutes([
      { condition: { urlPattern: { pathname: '/api/locations/*' } }, source: 'network' },
      { condition: { urlPattern: { pathname: '/c/*/api/locations/*' } }, source: 'network' },
    ]).catch(() => {}));
  }
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL);
    // index.html names every script, style sheet and module it loads: keep them all.
    const page = await fetch('/', { cache: 'no-store' });
    const html = await page.clone().text();
    const named = Array.from(html.matchAll(/(?:href|src)="(\/[^"#?]*)"/g), (match) => match[1]);
    await cache.put('/', page);
    await cache.addAll(Array.from(new Set([...EXTRA_SHELL.slice(1), ...await languageFiles(), ...named])));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    const current = new Set([SHELL, DATA]);
    for (const name of await caches.keys()) if (!current.has(name)) await caches.delete(name);
    await self.clients.claim();
  })());
});

// A page from before js/keptSession.js (still open while this worker took over) asks here.
self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'logged-out') event.waitUntil(caches.delete(DATA));
});

/** Which cache keeps the answer to `url` (same origin, GET), or null for none. A class's
 *  answers (`/c/<slug>/parse/…`, `/c/<slug>/api/…`) follow the same rules as the default
 *  class's, each kept under its own address. */
function cacheFor(url) {
  const path = url.pathname.replace(/^\/c\/[^/]+(?=\/(api|parse|v1)\/)/, '');
  // The map's snapshot is kept by the page itself (js/snapshot.js), not here.
  if (path === '/parse/classes/StudentLocation' || path === '/api/pins' || /^\/api\/classes(\/[^/]+)?$/.test(path) ||
      /^\/api\/pins\/[^/]+\/photos$/.test(path) || /^\/api\/photos\/[^/]+\/image$/.test(path)) return DATA;
  if (path.startsWith('/api/') || path.startsWith('/parse/') || path.startsWith('/v1/') ||
      path === '/health' || path === '/sw.js') return null;
  return SHELL;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // Tiles from --tile-url and every write go straight to the network.
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  const cacheName = cacheFor(url);
  if (!cacheName) return;
  // The app is one page, kept as '/'; other pages (reset.html) are never kept in its place.
  if (request.mode === 'navigate' && url.pathname !== '/' && url.pathname !== '/index.html') return;
  const key = request.mode === 'navigate' ? '/' : request;
  if (/^\/api\/photos\/[^/]+\/image$/.test(url.pathname)) {
    event.respondWith(cacheFirst(cacheName, key, request, event));
  } else {
    event.respondWith(networkFirst(cacheName, key, request, event));
  }
});

/** The page gets the answer as soon as it arrives. Data is copied at once; the app's own
 *  files only when changed, and a little after the page has started (comparing and storing
 *  40 files while it loaded them made a 100,000-student map 0.25 s slower to draw). */
async function networkFirst(cacheName, key, request, event) {
  try {
    const response = await fetch(request);
    // An app file whose ETag this worker already saw stored needs nothing at all.
    const tag = response.headers.get('ETag');
    const known = cacheName === SHELL && tag && shellTags.get(cacheKeyURL(key)) === tag;
    if (response.ok && !known) {
      const copy = response.clone();
      const delay = cacheName === SHELL ? SHELL_COPY_DELAY_MS : 0;
      event.waitUntil(new Promise((resolve) => setTimeout(resolve, delay)).then(() => keepCopy(cacheName, key, copy)));
    }
    return response;
  } catch (error) {
    const cached = await caches.match(key, { ignoreVary: true });
    if (!cached) throw error;
    return marked(cached);
  }
}

/** Album photos never change once kept (the server gives each its own URL). */
async function cacheFirst(cacheName, key, request, event) {
  const cached = await caches.match(key);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) {
    const copy = response.clone();
    event.waitUntil(openForKeeping(cacheName).then((cache) => cache && cache.put(key, copy)));
  }
  return response;
}

/** The ETag of each app file in the shell, as far as this worker has seen (it forgets when it
 *  stops; the cache is then asked). */
const shellTags = new Map();

function cacheKeyURL(key) {
  return typeof key === 'string' ? key : key.url;
}

async function keepCopy(cacheName, key, response) {
  // An app file the server says is unchanged (same ETag) is not written again; data is, so
  // that its kept-at time says when it was last confirmed.
  const tag = response.headers.get('ETag');
  const url = cacheKeyURL(key);
  const cache = await openForKeeping(cacheName);
  if (!cache) return;
  if (cacheName === SHELL && tag) {
    const kept = await cache.match(key, { ignoreVary: true });
    shellTags.set(url, tag);
    if (kept && kept.headers.get('ETag') === tag) return;
  }
  await cache.put(key, await stamped(response));
}

/** The cache to keep an answer in, or null: the account's data cache only while a session
 *  has it (the page made it at login and has not deleted it since). */
async function openForKeeping(cacheName) {
  if (cacheName === DATA && !(await caches.has(DATA))) return null;
  return caches.open(cacheName);
}

/** The response with the time it was kept. */
async function stamped(response) {
  const headers = new Headers(response.headers);
  headers.set(KEPT_AT, new Date().toISOString());
  return new Response(await response.blob(), { status: response.status, statusText: response.statusText, headers });
}

function marked(response) {
  const headers = new Headers(response.headers);
  headers.set(FROM_CACHE, response.headers.get(KEPT_AT) || 'unknown');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
