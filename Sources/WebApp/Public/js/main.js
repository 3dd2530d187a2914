// On the Map in the browser: scenes, tabs and the glue between them.
import * as api from './api.js';
import { StudentMap } from './map.js';
import { LocationList } from './list.js';
import { SearchTab } from './search.js';
import { AddLocationSheet } from './addLocation.js';
import { TravelTab } from './travel.js';
import { setBusy, showAlert, confirmAction, describeFailure } from './ui.js';

const $ = (id) => document.getElementById(id);
const ACCOUNT_STORAGE = 'onthemap.account';
const TABS = ['map', 'list', 'search', 'travel'];
/** The map wants every location: pages of 1,000, six at once (the most a browser opens to
 *  one HTTP/1.1 origin). */
const MAP_PAGE_SIZE = 1000;
const MAP_PARALLEL_PAGES = 6;
const COUNT_HINT_STORAGE = 'onthemap.lastCount';

const state = {
  account: loadAccount(),
  configPromise: api.fetchConfig(),
  worldPromise: null,
  map: null,
  mapPromise: null,
  list: null,
  search: null,
  sheet: null,
  travel: null,
  tab: 'map',
  mapGeneration: 0,
  refreshing: null,
  firstMarkers: null,
  basemapReady: null,
};
let markFirstMarkers;
state.firstMarkers = new Promise((resolve) => { markFirstMarkers = resolve; });

// ---- account kept between page loads (the session cookie itself is HttpOnly) ----

function loadAccount() {
  try {
    const account = JSON.parse(localStorage.getItem(ACCOUNT_STORAGE) || 'null');
    return account && typeof account.key === 'string' ? account : null;
  } catch {
    return null;
  }
}

function saveAccount(account) {
  state.account = account;
  if (account) localStorage.setItem(ACCOUNT_STORAGE, JSON.stringify(account));
  else localStorage.removeItem(ACCOUNT_STORAGE);
}

function loadWorld() {
  if (!state.worldPromise) {
    state.worldPromise = fetch('/world.geojson')
      .then((response) => (response.ok ? response.json() : null))
      .catch(() => null);
  }
  return state.worldPromise;
}

// ---- routing --------------------------------------------------------------

function route() {
  const path = location.hash.replace(/^#\/?/, '');
  if (!state.account) {
    showLogin(path === 'signup' ? 'signup' : 'login');
    return;
  }
  const tab = TABS.includes(path) ? path : 'map';
  showMain(tab);
}

function go(path) {
  if (location.hash !== `#/${path}`) location.hash = `#/${path}`;
  else route();
}

// ---- login and sign-up ------------------------------------------------------------

function showLogin(form) {
  $('main-scene').hidden = true;
  $('login-scene').hidden = false;
  const signup = form === 'signup';
  $('login-form').hidden = signup;
  $('signup-form').hidden = !signup;
  document.title = signup ? 'Sign Up · On the Map' : 'Log In · On the Map';
  const first = signup ? $('signup-first') : $('login-email');
  if (document.activeElement === document.body || !document.activeElement) first.focus();
}

function showFormError(id, message) {
  const box = $(id);
  box.textContent = message || '';
  box.hidden = !message;
}

function loginFailureMessage(error) {
  switch (error.kind) {
    case 'network': return 'Cannot reach the server. Check your connection and try again.';
    case 'auth': return 'Wrong email or password.';
    case 'server': return `The server had a problem (${error.status}). Try again in a moment.`;
    default: return error.message || 'Logging in failed.';
  }
}

async function completeLogin(email, password) {
  const key = await api.logIn(email, password);
  let user = { key, firstName: '', lastName: '' };
  try {
    user = await api.fetchUser(key);
  } catch {
    // The names only label our own location; logging in still worked.
  }
  saveAccount({ key, firstName: user.firstName, lastName: user.lastName, email });
}

function setUpAuthForms() {
  const loginForm = $('login-form');
  loginForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const email = $('login-email').value.trim();
    const password = $('login-password').value;
    if (!email || !password) {
      showFormError('login-error', 'Enter your email and password.');
      (email ? $('login-password') : $('login-email')).focus();
      return;
    }
    showFormError('login-error', '');
    const button = $('login-button');
    setBusy(button, true, 'Logging In…');
    try {
      await completeLogin(email, password);
      $('login-password').value = '';
      go(TABS.includes(state.tab) ? state.tab : 'map');
    } catch (error) {
      showFormError('login-error', loginFailureMessage(error));
      if (error.kind === 'auth') $('login-password').select();
    } finally {
      setBusy(button, false);
    }
  });

  const signupForm = $('signup-form');
  signupForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const firstName = $('signup-first').value.trim();
    const lastName = $('signup-last').value.trim();
    const email = $('signup-email').value.trim();
    const password = $('signup-password').value;
    if (!firstName || !lastName || !email || !password) {
      showFormError('signup-error', 'Fill in your name, email and a password.');
      return;
    }
    showFormError('signup-error', '');
    const button = $('signup-button');
    setBusy(button, true, 'Creating Account…');
    try {
      await api.signUp({ email, password, firstName, lastName });
    } catch (error) {
      setBusy(button, false);
      let message;
      if (error.kind === 'network') message = 'Cannot reach the server. Check your connection and try again.';
      else if (error.code === 'email_taken' || error.status === 409) message = 'An account with this email already exists. Log in instead.';
      else if (error.kind === 'server') message = `The server had a problem (${error.status}). Try again in a moment.`;
      else message = error.message || 'Signing up failed.';
      showFormError('signup-error', message);
      return;
    }
    try {
      setBusy(button, true, 'Logging In…');
      await completeLogin(email, password);
      $('signup-password').value = '';
      $('login-email').value = email;
      go('map');
    } catch (error) {
      showFormError('signup-error', `Your account was created, but logging in failed: ${loginFailureMessage(error)}`);
    } finally {
      setBusy(button, false);
    }
  });

  $('show-signup').addEventListener('click', (event) => {
    event.preventDefault();
    showFormError('signup-error', '');
    go('signup');
  });
  $('show-login').addEventListener('click', (event) => {
    event.preventDefault();
    showFormError('login-error', '');
    go('login');
  });
}

// ---- the tabs ----------------------------------------------------------------------

let mainReady = false;

function showMain(tab) {
  $('login-scene').hidden = true;
  $('main-scene').hidden = false;
  selectTab(tab);
  if (!mainReady) {
    mainReady = true;
    refreshAll({ initial: true });
  }
}

let leftMapWaiters = [];

/** Resolves when the user switches away from the map tab. */
function leftMapTab() {
  return new Promise((resolve) => leftMapWaiters.push(resolve));
}

function selectTab(tab) {
  state.tab = tab;
  if (tab !== 'map') {
    for (const resolve of leftMapWaiters) resolve();
    leftMapWaiters = [];
  }
  for (const name of TABS) {
    const active = name === tab;
    $(`${name}-view`).hidden = !active;
    const button = $(`tab-${name}`);
    button.setAttribute('aria-selected', String(active));
    button.tabIndex = active ? 0 : -1;
  }
  document.title = `${tab[0].toUpperCase()}${tab.slice(1)} · On the Map`;
  if (state.list) state.list.active = tab === 'list';
  if (state.search) state.search.active = tab === 'search';
  if (tab === 'map' && state.map) state.map.invalidateSize();
  if (tab === 'list' && state.list) state.list.fillIfVisible();
  if (tab === 'search') $('search-input').focus({ preventScroll: true });
  $('main-scene').dataset.tab = tab;
  if (tab === 'travel') ensureTravel().show();
  else if (state.travel) state.travel.hide();
}

function ensureTravel() {
  if (!state.travel) state.travel = new TravelTab({ configPromise: state.configPromise, loadWorld });
  return state.travel;
}

/** The refresh button: the Travel tab reloads pins; the others reload student locations. */
async function refresh() {
  if (state.tab !== 'travel') return refreshAll();
  const button = $('refresh-button');
  button.classList.add('spinning');
  button.disabled = true;
  try {
    await ensureTravel().refresh();
  } finally {
    if (!state.refreshing) {
      button.classList.remove('spinning');
      button.disabled = false;
    }
  }
}

function setUpTabs() {
  const tabs = $('tabs');
  tabs.addEventListener('click', (event) => {
    const button = event.target.closest('[data-tab]');
    if (button) go(button.dataset.tab);
  });
  tabs.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const index = TABS.indexOf(state.tab);
    const next = TABS[(index + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
    go(next);
    $(`tab-${next}`).focus();
  });
  state.list = new LocationList($('student-list'), $('list-footer'), $('list-view'));
  state.search = new SearchTab({
    input: $('search-input'),
    list: $('search-results'),
    footer: $('search-footer'),
    scroller: $('search-view'),
  });
}

async function ensureMap() {
  if (!state.mapPromise) {
    state.mapPromise = (async () => {
      const config = await state.configPromise;
      const map = new StudentMap($('map'), config);
      state.map = map;
      // The basemap is drawn once the markers are in (or failed), so that drawing it does not
      // hold up the location downloads; its file is fetched meanwhile.
      const world = loadWorld();
      state.basemapReady = state.firstMarkers.then(() => world).then((geojson) => map.setBasemap(config, geojson));
      return map;
    })();
  }
  return state.mapPromise;
}

/** Every location for the map, in pages of 1,000 (the most the Parse API has always
 *  allowed), six requests at once. The first page brings the count; when the last visit
 *  saw more than one page, the next pages are asked for at the same time as the first. */
async function fetchAllLocations(onPage = null) {
  const hint = Number(localStorage.getItem(COUNT_HINT_STORAGE)) || 0;
  const pages = [];
  const got = (index, results) => {
    pages[index] = results;
    if (onPage && results.length) onPage(results);
  };
  const fetchPage = (index) => api.fetchLocations({ limit: MAP_PAGE_SIZE, skip: index * MAP_PAGE_SIZE })
    .then((page) => got(index, page.results));
  const firstRequest = api.fetchLocations({ limit: MAP_PAGE_SIZE, count: true });
  const speculative = [];
  const guessedPages = Math.min(MAP_PARALLEL_PAGES - 1, Math.ceil(hint / MAP_PAGE_SIZE) - 1);
  for (let index = 1; index <= guessedPages; index++) speculative.push(fetchPage(index));
  let first;
  try {
    first = await firstRequest;
  } catch (error) {
    await Promise.allSettled(speculative);
    throw error;
  }
  got(0, first.results);
  const pageSize = first.results.length;
  if (first.count !== null) localStorage.setItem(COUNT_HINT_STORAGE, String(first.count));

  if (first.count !== null && first.count > pageSize && pageSize === MAP_PAGE_SIZE) {
    const total = Math.ceil(first.count / MAP_PAGE_SIZE);
    let next = speculative.length + 1;
    const worker = async (started) => {
      if (started) await started;
      while (next < total) await fetchPage(next++);
    };
    const workers = speculative.map(worker);
    while (workers.length < MAP_PARALLEL_PAGES - 1) workers.push(worker(null));
    await Promise.all(workers);
  } else {
    // Speculative pages only exist when the last visit saw more than one full page; here
    // the data shrank or the server pages differently, so their rows are not trusted.
    onPage = null;
    await Promise.allSettled(speculative);
    pages.length = 1;
    if (pageSize > 0 && first.count !== null && first.count > pageSize) {
      // The server allows smaller pages than we asked for: walk them in its size.
      for (let skip = pageSize; skip < first.count; skip += pageSize) {
        got(pages.length, (await api.fetchLocations({ limit: pageSize, skip })).results);
      }
    } else if (pageSize === MAP_PAGE_SIZE && first.count === null) {
      // No count: a full page means there may be more; a short one is the last.
      for (let skip = pageSize; ; skip += pageSize) {
        const page = (await api.fetchLocations({ limit: pageSize, skip })).results;
        got(pages.length, page);
        if (page.length < pageSize) break;
      }
    }
  }
  performance.mark('onthemap:locations-loaded');
  const seen = new Set();
  const all = [];
  for (const page of pages) {
    for (const item of page || []) {
      if (item.objectId && seen.has(item.objectId)) continue;
      seen.add(item.objectId);
      all.push(item);
    }
  }
  return all;
}

function setMapStatus(text, stateName) {
  const status = $('map-status');
  status.textContent = text;
  status.dataset.state = stateName;
}

/** Loads the map's markers; on failure keeps the markers already shown. */
async function reloadMap() {
  const generation = ++state.mapGeneration;
  const mapElement = $('map');
  const ownKey = state.account && state.account.key;
  // With nothing on the map yet, markers are built page by page while the rest download;
  // a refresh builds them after, then swaps all at once, so a failed one keeps what is shown.
  const progressive = !mapElement.dataset.markerCount;
  if (progressive) setMapStatus('Loading students…', 'loading');
  const mapPromise = ensureMap();
  let liveMap = null;
  let early = [];
  if (progressive) {
    mapPromise.then((map) => {
      if (generation !== state.mapGeneration) return;
      map.beginLoad(ownKey);
      liveMap = map;
      for (const results of early) map.addBatch(results);
      early = null;
    });
  }
  const onPage = progressive ? (results) => {
    if (generation !== state.mapGeneration) return;
    if (liveMap) liveMap.addBatch(results);
    else early.push(results);
  } : null;
  let map, locations;
  try {
    [map, locations] = await Promise.all([mapPromise, fetchAllLocations(onPage)]);
  } catch (error) {
    markFirstMarkers();
    if (generation === state.mapGeneration) {
      if (mapElement.dataset.markerCount) setMapStatus(statusText(Number(mapElement.dataset.markerCount)), 'ready');
      else setMapStatus('Could not load students', 'error');
    }
    throw error;
  }
  if (generation !== state.mapGeneration) return;
  const count = progressive ? await map.finishLoad() : await map.setLocations(locations, ownKey);
  if (generation !== state.mapGeneration) return;
  markFirstMarkers();
  mapElement.dataset.markerCount = String(count);
  mapElement.dataset.state = 'ready';
  setMapStatus(statusText(count), 'ready');
  performance.mark('onthemap:markers-ready');
  document.dispatchEvent(new CustomEvent('onthemap:markers-ready', { detail: { count } }));
}

function statusText(count) {
  return count === 1 ? '1 student' : `${count.toLocaleString()} students`;
}

/** Refreshes the map, the list and the current search; one alert if anything failed. */
function refreshAll({ initial = false } = {}) {
  if (state.refreshing) return state.refreshing;
  const button = $('refresh-button');
  button.classList.add('spinning');
  button.disabled = true;
  $('progress').hidden = false;
  state.refreshing = (async () => {
    const lists = [state.list];
    if (!initial && state.search.results.where) lists.push(state.search.results);
    // The map tab gets the connections and the main thread first; the hidden list follows.
    const mapJob = reloadMap();
    const listsFirst = state.tab !== 'map';
    const listJobs = lists.map(async (list) => {
      if (!listsFirst) await Promise.race([mapJob.catch(() => {}), leftMapTab()]);
      return list.reload(undefined, { alertOnFailure: false });
    });
    const outcomes = await Promise.allSettled([mapJob, ...listJobs]);
    let error = outcomes[0].status === 'rejected' ? outcomes[0].reason : null;
    lists.forEach((list, index) => {
      if (!error && outcomes[index + 1].value === false && list.lastError) error = list.lastError;
    });
    button.classList.remove('spinning');
    button.disabled = false;
    $('progress').hidden = true;
    state.refreshing = null;
    if (error) {
      const { title, message } = describeFailure(error, 'downloading student locations');
      await showAlert(title, message);
    }
  })();
  return state.refreshing;
}

// ---- add location -------------------------------------------------------------------

async function addLocation() {
  const button = $('add-location-button');
  if (button.disabled) return;
  button.disabled = true;
  let existing = null;
  try {
    existing = await api.fetchOwnLocation(state.account.key);
  } catch (error) {
    button.disabled = false;
    const { title, message } = describeFailure(error, 'checking for your existing location');
    await showAlert(title, message);
    return;
  }
  button.disabled = false;
  if (existing) {
    const place = existing.mapString ? ` (“${existing.mapString}”)` : '';
    const overwrite = await confirmAction(
      'Replace Your Location?',
      `You have already posted a location${place}. Would you like to overwrite it with a new one?`,
      'Overwrite',
      'Cancel',
    );
    if (!overwrite) return;
  }
  if (!state.sheet) state.sheet = new AddLocationSheet({ config: await state.configPromise, loadWorld });
  const saved = await state.sheet.open({ account: state.account, existing });
  if (!saved) return;
  await refreshAll();
  if (state.tab === 'map' && state.map && saved.objectId) state.map.reveal(saved.objectId);
}

// ---- logout ---------------------------------------------------------------------------

async function logOut() {
  const button = $('logout-button');
  button.disabled = true;
  try {
    await api.logOut();
  } catch {
    // The session ends on this device either way; the server forgets it when it expires.
  }
  button.disabled = false;
  saveAccount(null);
  mainReady = false;
  state.mapGeneration += 1;
  if (state.map) state.map.setLocations([]);
  const mapElement = $('map');
  delete mapElement.dataset.markerCount;
  delete mapElement.dataset.state;
  $('student-list').replaceChildren();
  $('search-input').value = '';
  state.search.results.clear('Type a name or a place, for example “Lagos” or “Maria”.');
  state.search.lastQuery = null;
  if (state.travel) state.travel.reset();
  go('login');
}

// ---- start ------------------------------------------------------------------------------

function start() {
  setUpAuthForms();
  setUpTabs();
  $('logout-button').addEventListener('click', logOut);
  $('refresh-button').addEventListener('click', () => refresh());
  $('add-location-button').addEventListener('click', addLocation);
  window.addEventListener('hashchange', route);
  route();
}

start();
