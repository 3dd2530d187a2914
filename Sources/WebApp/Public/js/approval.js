// The author's side of approval. A class may make posts wait for a moderator (its
// `approval`: `new-members` waits for a member's first post, `all` for every post and move);
// until one approves it, a waiting post is seen only by its author and the class's
// moderators: it is in the author's own list, not on anyone's map. While the signed-in
// student has one in the shown class (`/api/account`'s `has_waiting_post`), a banner over the
// Map, List and Search tabs says so, their own list rows carry a "Waiting for approval" badge
// and the pin button's name says it too. The answer is asked again when the author's post
// changes on the live stream (approved, rejected, moved), after each refresh, and once a
// minute while a post waits, so the banner goes (and the moderators' notice shows) soon after
// a moderator decides. moderation.js reads `/api/account`; main.js wires `check` to it.
import { state } from './state.js';
import { fetchOwnLocation } from './api.js';
import { el } from './ui.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';

/** While a post waits (and the page is in view), how often the answer is asked again. */
const CHECK_EVERY_MS = 60 * 1000;
/** A refresh asks again only when the last answer is older than this. */
const FRESH_MS = 5 * 1000;

/** What the last `/api/account` answer said for the shown class (null: not asked yet). */
let known = null;
/** The waiting post's objectId, once learnt (the live stream names posts by it). */
let waitingId = null;
let lastAnswer = 0;
let check = async () => null;
let timer = null;

/** Whether the signed-in student has a post waiting in the shown class. */
export function isWaiting() {
  return Boolean(known && known.has_waiting_post);
}

/** Whether the signed-in account moderates the shown class (its posts never wait); null
 *  while not known. */
export function canModerate() {
  return known ? Boolean(known.can_moderate) : null;
}

/** Whether `location` is the signed-in student's own (its list row says when it waits). */
export function isOwn(location) {
  return Boolean(state.account && location && location.uniqueKey === state.account.key);
}

/** The badge an own list row carries while its post waits. */
export function waitingBadge() {
  return el('span', { class: 'row-waiting', text: t('approval.badge') });
}

/** Takes an `/api/account` answer for the shown class (null: another class, or signed out). */
export function noteAccount(me) {
  const was = isWaiting();
  known = me || null;
  lastAnswer = me ? Date.now() : 0;
  const waiting = isWaiting();
  if (!waiting) waitingId = null;
  showBanner(waiting, was);
  markOwnRows(waiting);
  nameAddButton(waiting);
  $('add-location-button').classList.toggle('has-waiting', waiting);
  clearInterval(timer);
  timer = waiting ? setInterval(poll, CHECK_EVERY_MS) : null;
  if (waiting && !waitingId) learnWaitingId();
}

/** The pin button's name (and tooltip): it says so while the student's post waits. */
function nameAddButton(waiting) {
  const button = $('add-location-button');
  const label = waiting ? t('approval.addLabelWaiting') : t('approval.addLabel');
  button.setAttribute('aria-label', label);
  button.title = label;
}

// A new language: the banner, the pin button's name and the badges say it again in it (after
// translateDocument, which gave the pin button its plain name).
onLanguageChange(() => {
  const waiting = isWaiting();
  nameAddButton(waiting);
  const text = $('waiting-text');
  if (waiting && text.textContent) text.textContent = t('approval.banner');
  for (const badge of document.querySelectorAll('.row-waiting')) badge.textContent = t('approval.badge');
});

/** The post just saved (its objectId) is the one that may wait. */
export function noteOwnPost(objectId) {
  if (objectId) waitingId = objectId;
}

function showBanner(waiting, was) {
  const banner = $('waiting-banner');
  const text = $('waiting-text');
  banner.hidden = !waiting;
  if (!waiting) {
    text.textContent = '';
    return;
  }
  if (was && text.textContent) return;
  // Put in once the banner shows: a live region says nothing about what it held while hidden.
  text.textContent = '';
  requestAnimationFrame(() => { if (isWaiting()) text.textContent = t('approval.banner'); });
}

/** Adds (or takes off) the badge on the student's own rows in the List and Search tabs. */
function markOwnRows(waiting) {
  for (const row of document.querySelectorAll('li.student[data-own]')) {
    const meta = row.querySelector('.row-meta');
    const badge = row.querySelector('.row-waiting');
    if (waiting && !badge && meta) meta.after(waitingBadge());
    else if (!waiting && badge) badge.remove();
  }
}

async function learnWaitingId() {
  const account = state.account;
  try {
    const own = account ? await fetchOwnLocation(account.key) : null;
    if (own && state.account === account && isWaiting() && !waitingId) waitingId = own.objectId;
  } catch {
    // Asked again with the next answer; the banner does not need it.
  }
}

function poll() {
  if (document.visibilityState !== 'visible' || $('main-scene').hidden || !navigator.onLine) return;
  check().catch(() => {});
}

/** `check` asks `/api/account` again (moderation.js's checkAccount) and hands the answer to
 *  noteAccount. */
export function setUpApproval({ check: checker }) {
  check = checker;
  // The author's post changed on the stream (live.js says whose): approved (it shows),
  // rejected or moved (it went from classmates' maps). Asked again; a move that waits went
  // from the author's own list as well, so the list is loaded again to bring its row back.
  document.addEventListener('onthemap:live-change', async (event) => {
    // The map says a pin changed too (with no detail): live.js's event is the one that says whose.
    if (!event.detail) return;
    const { kind, objectId, own } = event.detail;
    if (!own && objectId !== waitingId) return;
    const me = await check().catch(() => null);
    if (kind === 'deleted' && me && me.has_waiting_post && state.list) state.list.reload(undefined, { alertOnFailure: false });
  });
  // After a refresh (the refresh button, back online) the answer may have changed too.
  document.addEventListener('onthemap:markers-ready', () => {
    if (known && Date.now() - lastAnswer > FRESH_MS) check().catch(() => {});
  });
  document.addEventListener('visibilitychange', () => {
    if (isWaiting() && document.visibilityState === 'visible' && Date.now() - lastAnswer > CHECK_EVERY_MS) poll();
  });
  document.addEventListener('onthemap:students-cleared', () => noteAccount(null));
  // The banner takes room under the top bar: the views start below it (0 while hidden).
  const banner = $('waiting-banner');
  const scene = $('main-scene');
  new ResizeObserver(() => {
    const height = banner.offsetHeight;
    if (scene.style.getPropertyValue('--waiting-height') === `${height}px`) return;
    scene.style.setProperty('--waiting-height', `${height}px`);
    if (state.map && !$('map-view').hidden) state.map.invalidateSize();
  }).observe(banner);
}
