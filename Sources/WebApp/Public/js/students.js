// Student locations on the Map, List and Search tabs: loaded together after login,
// refreshed together, cleared together on logout.
import { state, loadWorld } from './state.js';
import { fetchAllLocations, snapshotVersion } from './mapData.js';
import { StudentMap } from './map.js';
import { showAlert, describeFailure } from './ui.js';
import { ApiError } from './api.js';
import { isOffline } from './connection.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';

/** Whether the locations were loaded since the last login. */
let loaded = false;
let mapPromise = null;
/** Bumped whenever a map load starts or the student leaves, so a stale load drops its result. */
let mapGeneration = 0;
/** Bumped whenever the student leaves, so a refresh under way loads nothing more. */
let clearings = 0;
/** Settles once the first markers are on the map (or failed), the cue to draw the basemap. */
let markFirstMarkers;
const firstMarkers = new Promise((resolve) => { markFirstMarkers = resolve; });
let leftMapWaiters = [];

/** Loads everything the first time the tabs are shown after a login. */
export function loadStudentsOnce() {
  if (loaded) return;
  loaded = true;
  refreshAll({ initial: true });
}

/** Tells a refresh waiting for the map that the student switched away from it. */
export function mapTabLeft() {
  for (const resolve of leftMapWaiters) resolve();
  leftMapWaiters = [];
}

/** Resolves when the user switches away from the map tab. */
function leftMapTab() {
  return new Promise((resolve) => leftMapWaiters.push(resolve));
}

async function ensureMap() {
  if (!mapPromise) {
    mapPromise = (async () => {
      if (!window.L) throw new Error(t('map.error.noLibrary', { library: 'Leaflet' }));
      const config = await state.configPromise;
      const map = new StudentMap($('map'), config);
      state.map = map;
      // The basemap is drawn once the markers are in (or failed), so that drawing it does not
      // hold up the location downloads; its file is fetched meanwhile.
      const world = loadWorld();
      firstMarkers.then(() => world).then((geojson) => map.setBasemap(config, geojson));
      return map;
    })();
  }
  return mapPromise;
}

/** Centres the student map on a spot (an address such as `#/map@6.45,3.39,10`). */
export async function showOnMap(latitude, longitude, zoom) {
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return;
  const map = await ensureMap();
  map.viewChosen = true;
  map.map.setView([latitude, longitude], zoom, { animate: false });
}

/** The map's status line: `stateName` is loading, error or ready (with the count shown). */
function setMapStatus(stateName, count = 0) {
  const status = $('map-status');
  status.dataset.state = stateName;
  if (stateName === 'ready') status.dataset.count = String(count);
  else delete status.dataset.count;
  status.textContent = mapStatusText(status);
}

function mapStatusText(status) {
  if (status.dataset.state === 'loading') return t('map.loading');
  if (status.dataset.state === 'error') return t('map.error.loading');
  if (status.dataset.state === 'ready') return statusText(Number(status.dataset.count) || 0);
  return status.textContent;
}

/** "1 student", "1,234 students", "1.234 Studierende" (main.js's live count says it too). */
export function statusText(count) {
  return t('students.count', { count });
}

/** The live count changed (main.js): the status line says it, when it says a count. */
export function showMarkerCount(count) {
  const status = $('map-status');
  if (status.dataset.state === 'ready') setMapStatus('ready', count);
  showEmptyPrompt(count);
}

/** A map nobody is on yet invites the student to be the first (when they may post). */
function showEmptyPrompt(count) {
  const prompt = $('map-empty');
  const add = $('add-location-button');
  prompt.hidden = count > 0;
  $('map-empty-add').hidden = !add || add.hidden || add.disabled;
}

// Another language: the status line says the same in it.
onLanguageChange(() => {
  const status = $('map-status');
  if (status && status.dataset.state) status.textContent = mapStatusText(status);
});

/** Loads the map's markers; on failure keeps the markers already shown. */
async function reloadMap() {
  const generation = ++mapGeneration;
  const mapElement = $('map');
  const ownKey = state.account && state.account.key;
  // With nothing on the map yet, markers are built page by page while the rest download;
  // a refresh builds them after, then swaps all at once, so a failed one keeps what is shown.
  const progressive = !mapElement.dataset.markerCount;
  if (progressive) setMapStatus('loading');
  const mapReady = ensureMap();
  let liveMap = null;
  let early = [];
  if (progressive) {
    mapReady.then((map) => {
      if (generation !== mapGeneration) return;
      map.beginLoad(ownKey);
      liveMap = map;
      for (const results of early) map.addBatch(results);
      early = null;
    });
  }
  const onPage = progressive ? (results) => {
    if (generation !== mapGeneration) return;
    if (liveMap) liveMap.addBatch(results);
    else early.push(results);
  } : null;
  let map, locations;
  try {
    [map, locations] = await Promise.all([mapReady, fetchAllLocations(onPage)]);
  } catch (error) {
    markFirstMarkers();
    if (generation === mapGeneration) {
      if (mapElement.dataset.markerCount) setMapStatus('ready', Number(mapElement.dataset.markerCount));
      else setMapStatus('error');
    }
    throw error;
  }
  if (generation !== mapGeneration) return;
  const count = progressive ? await map.finishLoad() : await map.setLocations(locations, ownKey);
  if (generation !== mapGeneration) return;
  // The class's map opens on its students (a refresh leaves the view where the student put it).
  if (progressive && !map.viewChosen) map.fitToStudents();
  markFirstMarkers();
  mapElement.dataset.markerCount = String(count);
  mapElement.dataset.state = 'ready';
  setMapStatus('ready', count);
  showEmptyPrompt(count);
  performance.mark('onthemap:markers-ready');
  document.dispatchEvent(new CustomEvent('onthemap:markers-ready', { detail: { count, version: snapshotVersion() } }));
}

/** Refreshes the map, the list and the current search; one alert if anything failed. */
export function refreshAll({ initial = false } = {}) {
  if (state.refreshing) return state.refreshing;
  const button = $('refresh-button');
  button.classList.add('spinning');
  button.disabled = true;
  $('progress').hidden = false;
  const clearing = clearings;
  const job = (async () => {
    const lists = [state.list];
    if (!initial && state.search.results.where) lists.push(state.search.results);
    // The map tab gets the connections and the main thread first; the hidden list follows.
    const mapJob = reloadMap();
    const listsFirst = state.tab !== 'map';
    const listJobs = lists.map(async (list) => {
      if (!listsFirst) await Promise.race([mapJob.catch(() => {}), leftMapTab()]);
      if (clearing !== clearings) return true;
      return list.reload(undefined, { alertOnFailure: false });
    });
    const outcomes = await Promise.allSettled([mapJob, ...listJobs]);
    let error = outcomes[0].status === 'rejected' ? outcomes[0].reason : null;
    lists.forEach((list, index) => {
      if (!error && outcomes[index + 1].value === false && list.lastError) error = list.lastError;
    });
    // Offline the service worker answered with what it kept: nothing new was downloaded.
    if (!error && !initial && isOffline()) error = new ApiError('network', t('offline.keptOnly'));
    if (state.refreshing === job) state.refreshing = null;
    if (!state.refreshing) {
      button.classList.remove('spinning');
      button.disabled = false;
      $('progress').hidden = true;
    }
    // The student left meanwhile: what failed is no longer shown.
    if (error && clearing === clearings) {
      const { title, message } = describeFailure(error, t('list.failure.loading'));
      await showAlert(title, message);
    }
  })();
  state.refreshing = job;
  return job;
}

/** Forgets every student shown (after a logout), so the next login loads afresh. */
export function clearStudents() {
  loaded = false;
  clearings += 1;
  state.refreshing = null; // a refresh under way is for the student who left
  document.dispatchEvent(new CustomEvent('onthemap:students-cleared'));
  mapGeneration += 1;
  if (state.map) state.map.setLocations([]);
  const mapElement = $('map');
  delete mapElement.dataset.markerCount;
  delete mapElement.dataset.state;
  // Through the list, so that a download still under way does not fill it again.
  state.list.clear();
  $('search-input').value = '';
  state.search.showHint();
  state.search.lastQuery = null;
}
