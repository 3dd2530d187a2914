// On the Map in the browser: which scene each address shows, and start-up (tabs.js has the
// tabs, connection.js and sw.js the offline side).
import { state } from './state.js';
import { startRouting, go } from './router.js';
import { showLogin, setUpAuthForms } from './auth.js';
import { loadStudentsOnce, refreshAll, showOnMap } from './students.js';
import { TABS, selectTab, setUpTabs, refresh } from './tabs.js';
import { addLocation } from './addLocation.js';
import { AccountDialog } from './account.js';
import { logOut, setUpSessionEnd } from './session.js';
import { watchSession } from './sessionWatch.js';
import { showProviderButtons, completeProviderSignIn } from './providers.js';
import { onConnectionChange, showingSignedIn } from './connection.js';
import { LiveUpdates } from './live.js';
import { formatCount } from './ui.js';
import { moderationSignedIn, setUpReporting } from './moderation.js';
import { $ } from './dom.js';

function route() {
  const path = location.hash.replace(/^#\/?/, '');
  if (path === 'signed-in') {
    // Back from a provider (signing in, or linking it): ask whose session this is.
    completeProviderSignIn().then((ok) => go(ok ? 'map' : 'login'));
    return;
  }
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
  showingSignedIn(true);
  $('login-scene').hidden = true;
  $('main-scene').hidden = false;
  selectTab(tab);
  loadStudentsOnce();
  moderationSignedIn();
}

/** Live changes follow every map load (from its snapshot's version) until logout. */
function setUpLive() {
  const live = new LiveUpdates({
    indicator: $('live-indicator'),
    map: () => state.map,
    list: () => state.list,
    ownKey: () => state.account && state.account.key,
    reload: () => refreshAll(),
    counted: (count) => {
      $('map').dataset.markerCount = String(count);
      const status = $('map-status');
      if (status.dataset.state === 'ready') status.textContent = count === 1 ? '1 student' : `${formatCount(count)} students`;
    },
  });
  document.addEventListener('onthemap:markers-ready', (event) => live.follow(event.detail.version));
  document.addEventListener('onthemap:students-cleared', () => live.stop());
}

function start() {
  setUpAuthForms();
  showProviderButtons();
  setUpTabs();
  setUpLive();
  const accountDialog = new AccountDialog();
  $('logout-button').addEventListener('click', logOut);
  $('account-button').addEventListener('click', () => accountDialog.open());
  $('refresh-button').addEventListener('click', () => refresh());
  $('add-location-button').addEventListener('click', addLocation);
  setUpReporting();
  setUpSessionEnd();
  startRouting(route);
  watchSession();
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
