// On the Map in the browser: which scene each address shows, and start-up (tabs.js has the
// tabs, connection.js and sw.js the offline side, classes.js the class shown).
import { state } from './state.js';
import { startRouting, go } from './router.js';
import { showLogin, setUpAuthForms } from './auth.js';
import { loadStudentsOnce, refreshAll, showOnMap, showMarkerCount } from './students.js';
import { TABS, selectTab, setUpTabs, refresh } from './tabs.js';
import { addLocation, editLocation } from './addLocation.js';
import { setUpMyPin } from './myPin.js';
import { AccountDialog } from './account.js';
import { logOut, setUpSessionEnd } from './session.js';
import { watchSession } from './sessionWatch.js';
import { showProviderButtons, completeProviderSignIn } from './providers.js';
import { onConnectionChange, showingSignedIn } from './connection.js';
import { LiveUpdates } from './live.js';
import { showFormMessage } from './ui.js';
import { moderationSignedIn, setUpReporting, checkAccount } from './moderation.js';
import { setUpApproval } from './approval.js';
import { currentClass, isSlug, linkTo } from './currentClass.js';
import { setUpClasses, switchClass, openClass, loadClasses, shownPrecision } from './classes.js';
import { setUpNearMe } from './nearMeView.js';
import { showJoin, showCreate, keepForAfterSignIn, takeAfterSignIn, describeInvitation, forgetInvitation } from './classPages.js';
import { showSettings } from './classSettings.js';
import { showPresent, hidePresent } from './present.js';
import { setUpNotices, stopNotice, stopNoticeToken } from './classNotices.js';
import { $ } from './dom.js';
import { ready as languageReady, language, onLanguageChange } from './i18n.js';

function decoded(text) {
  try { return decodeURIComponent(text); } catch { return text; }
}

/** What an address shows. `#/c/<slug>/…` is class <slug>'s (null: the default class's):
 *  its tabs, a spot on its map, its settings, its present view (the projector's, js/present.js).
 *  `#/join/<slug>/<code>` is an invitation,
 *  `#/classes/new` the new-class page. */
function readAddress(path) {
  const join = /^join\/([^/]+)\/([^/]+)$/.exec(path);
  if (join && isSlug(join[1])) return { page: 'join', slug: join[1], code: decoded(join[2]) };
  if (path === 'classes/new') return { page: 'create' };
  let slug = null;
  let view = path;
  const inClass = /^c\/([^/]+)(?:\/(.*))?$/.exec(path);
  if (inClass && isSlug(inClass[1])) {
    slug = inClass[1];
    view = inClass[2] || 'map';
  }
  if (slug && view === 'settings') return { page: 'settings', slug };
  if (slug && view === 'present') return { page: 'present', slug };
  // `map@6.45,3.39,10`: a spot on the map (latitude, longitude, zoom), as a link can share.
  const spot = /^map@(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?),(\d+(?:\.\d+)?)$/.exec(view);
  return { page: 'main', slug, tab: spot ? 'map' : TABS.includes(view) ? view : 'map', spot };
}

function route() {
  const path = location.hash.replace(/^#\/?/, '');
  // Any other address (Back, a link, logging out) closes the present view first.
  if (!/^c\/[^/]+\/present$/.test(path)) hidePresent();
  const arrival = /^signed-in(?:\/c\/([^/]+))?$/.exec(path);
  if (arrival) {
    // Back from a provider (signing in, or linking it), or launched from a course
    // (`signed-in/c/<slug>`: that class's map): ask whose session this is.
    const launched = arrival[1] && isSlug(arrival[1]) ? `c/${arrival[1]}` : null;
    completeProviderSignIn().then((ok) => go(ok ? launched || takeAfterSignIn() || 'map' : 'login'));
    return;
  }
  // A notice email's "stop these emails" link works signed in or not.
  const stopToken = stopNoticeToken(path);
  if (stopToken) {
    stopNotice(stopToken).finally(() => go(state.account ? 'map' : 'login'));
    return;
  }
  if (!state.account) {
    const note = keepForAfterSignIn(path);
    // An invitation opens on Sign up: nearly everyone invited is new here (Log in is a click away).
    const invitation = readAddress(path);
    showLogin(path === 'signup' || path === 'forgot' ? path : invitation.page === 'join' ? 'signup' : 'login');
    if (note) showFormMessage('login-note', note);
    if (invitation.page === 'join') describeInvitation(invitation.slug, invitation.code);
    return;
  }
  showFormMessage('login-note', '');
  forgetInvitation();
  const address = readAddress(path);
  if (address.page === 'present') {
    // Over the app: leaving it (Leave, Escape) shows the class's map.
    showPresent(address.slug, () => go(linkTo('map', address.slug)));
    return;
  }
  // The map's own pages ask for the list of classes once their markers are in (classes.js).
  if (address.page !== 'main') loadClasses().catch(() => {});
  if (address.page === 'join') showJoin(address.slug, address.code);
  else if (address.page === 'create') showCreate();
  else if (address.page === 'settings') showSettings(address.slug);
  else showMain(address);
}

function showMain({ slug, tab, spot }) {
  switchClass(slug);
  showingSignedIn(true);
  // Back from a class page, the focus (there, now hidden) goes to the class button.
  const fromClassPage = !$('class-scene').hidden && $('class-scene').contains(document.activeElement);
  $('login-scene').hidden = true;
  $('class-scene').hidden = true;
  $('main-scene').hidden = false;
  selectTab(tab);
  if (fromClassPage) $('class-button').focus();
  const load = () => {
    loadStudentsOnce();
    moderationSignedIn();
    if (spot) showOnMap(Number(spot[1]), Number(spot[2]), Number(spot[3]));
  };
  // A class named in the address loads once the server said this account may open it.
  const opening = openClass(slug);
  if (opening === true) load();
  else {
    opening.then((open) => {
      if (open && state.account && currentClass() === slug && !$('main-scene').hidden) load();
    });
  }
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
      showMarkerCount(count);
    },
  });
  document.addEventListener('onthemap:markers-ready', (event) => live.follow(event.detail.version));
  document.addEventListener('onthemap:students-cleared', () => live.stop());
}

/** The web app manifest in the page's language (its description; the name is the brand). */
function showManifest(tag) {
  const link = document.querySelector('link[rel="manifest"]');
  if (link) link.setAttribute('href', tag === 'en' ? '/manifest.webmanifest' : `/manifest.${tag}.webmanifest`);
}
onLanguageChange(showManifest);

function start() {
  showManifest(language());
  setUpAuthForms();
  showProviderButtons();
  setUpTabs();
  setUpLive();
  const accountDialog = new AccountDialog();
  $('logout-button').addEventListener('click', logOut);
  $('account-button').addEventListener('click', () => accountDialog.open());
  $('refresh-button').addEventListener('click', () => refresh());
  $('add-location-button').addEventListener('click', addLocation);
  $('map-empty-add').addEventListener('click', addLocation);
  setUpReporting();
  setUpMyPin({ edit: editLocation, removed: () => checkAccount().catch(() => {}) });
  setUpNearMe({ precision: shownPrecision });
  setUpApproval({ check: checkAccount });
  setUpClasses();
  setUpNotices();
  setUpSessionEnd();
  startRouting(route);
  watchSession();
  startServiceWorker();
  // The server is back: show what changed meanwhile (the map, the list, a search, and the
  // Travel pins once that tab was opened), without the student pressing Refresh.
  onConnectionChange((offline) => {
    if (offline || !state.account || $('main-scene').hidden) return;
    refreshAll();
    if (state.travel && (state.travel.loaded || state.travel.active)) state.travel.reload();
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

// The page's language first (at once for English, whose catalogue is preloaded; never longer
// than js/i18n.js's limit), so that nothing is written in the wrong one.
languageReady.then(start);
