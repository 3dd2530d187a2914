// On the Map in the browser: which scene each address shows, the tabs, and start-up.
import { state, loadWorld } from './state.js';
import { startRouting, go } from './router.js';
import { showLogin, setUpAuthForms } from './auth.js';
import { loadStudentsOnce, mapTabLeft, refreshAll, showOnMap } from './students.js';
import { LocationList } from './list.js';
import { SearchTab } from './search.js';
import { TravelTab } from './travel.js';
import { addLocation } from './addLocation.js';
import { AccountDialog } from './account.js';
import { logOut } from './session.js';
import { onConnectionChange } from './connection.js';

const $ = (id) => document.getElementById(id);
const TABS = ['map', 'list', 'search', 'travel'];
/** A pointer chose the Search tab: its field takes the focus. From the keyboard the focus
 *  stays on the tabs, so the arrow keys keep moving between them. */
let focusSearchField = true;

function route() {
  const path = location.hash.replace(/^#\/?/, '');
  if (!state.account) {
    showLogin(path === 'signup' ? 'signup' : 'login');
    return;
  }
  // `#/map@6.45,3.39,10`: a spot on the map (latitude, longitude, zoom), as a link can share.
  const spot = /^map@(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?),(\d+(?:\.\d+)?)$/.exec(path);
  showMain(spot ? 'map' : TABS.includes(path) ? path : 'map');
  if (spot) showOnMap(Number(spot[1]), Number(spot[2]), Number(spot[3]));
}

function showMain(tab) {
  $('login-scene').hidden = true;
  $('main-scene').hidden = false;
  selectTab(tab);
  loadStudentsOnce();
}

function selectTab(tab) {
  state.tab = tab;
  if (tab !== 'map') mapTabLeft();
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
  if (tab === 'search' && focusSearchField) $('search-input').focus({ preventScroll: true });
  focusSearchField = true;
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
    if (!button) return;
    focusSearchField = event.detail > 0;
    go(button.dataset.tab);
  });
  tabs.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const index = TABS.indexOf(state.tab);
    const next = TABS[(index + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length];
    focusSearchField = false;
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

function start() {
  setUpAuthForms();
  setUpTabs();
  const accountDialog = new AccountDialog();
  $('logout-button').addEventListener('click', logOut);
  $('account-button').addEventListener('click', () => accountDialog.open());
  $('refresh-button').addEventListener('click', () => refresh());
  $('add-location-button').addEventListener('click', addLocation);
  startRouting(route);
  startServiceWorker();
  // Back online: show what changed meanwhile.
  onConnectionChange((offline) => {
    if (!offline && state.account && !$('main-scene').hidden) refreshAll();
  });
}

/** Registers sw.js, which keeps the app and the last data for offline use. */
function startServiceWorker() {
  if (!('serviceWorker' in navigator)) return;
  const controlled = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.register('/sw.js').catch(() => {
    // No offline copy (a plain-http host that is not localhost, say); the app works as before.
  });
  // On the very first visit the data was loaded before the worker could keep it: load it
  // again through the worker so that the next visit opens offline too.
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (controlled || !state.account || $('main-scene').hidden) return;
    (state.refreshing || Promise.resolve()).then(() => refreshAll());
  });
}

start();
