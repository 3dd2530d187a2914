// The class scene's pages beside the map: an invitation (`#/join/<slug>/<code>`, the link a
// teacher hands out) and a new class (`#/classes/new`). classSettings.js has the third, a
// class's settings. Addresses that need a session are kept while the student signs in or
// up, and shown after.
import * as api from './api.js';
import { go } from './router.js';
import { linkTo } from './currentClass.js';
import { classChanged, classMembershipChanged, loadClasses } from './classes.js';
import { showingSignedIn } from './connection.js';
import { setBusy, formFailureMessage, showFormMessage } from './ui.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';
import { NEW_CLASS } from './classOptions.js';
import { isolated } from './bidi.js';
import { state } from './state.js';
import { showTranslatedMessage } from './formMessages.js';

const VIEWS = ['join-view', 'settings-view', 'create-view'];

/** The shown page's back label and title, each a function of the page's language. */
let sceneWords = null;

function asWords(value, fallback) {
  if (typeof value === 'function') return value;
  return value ? () => value : fallback;
}

function paintScene() {
  if (!sceneWords) return;
  $('class-back-label').textContent = sceneWords.backLabel();
  document.title = t('app.pageTitle', { page: sceneWords.title() });
}

/** Shows the class scene with page `view`; `back` is the address its back link goes to,
 *  `backLabel` its words (the map's by default) and `title` the page's name for the page
 *  title; either may be a function, called again when the language changes. The focus goes
 *  to `focus` (the page's heading unless said), as on a new page. */
export function showClassScene(view, { back = 'map', backLabel, title, focus } = {}) {
  showingSignedIn(true);
  $('login-scene').hidden = true;
  $('main-scene').hidden = true;
  $('class-scene').hidden = false;
  for (const id of VIEWS) $(id).hidden = id !== view;
  $('class-back').setAttribute('href', `#/${back}`);
  sceneWords = { backLabel: asWords(backLabel, () => t('classPage.back')), title: asWords(title, () => t('app.title')) };
  paintScene();
  const target = focus || $(view).querySelector('.class-page-title');
  if (target) target.focus({ preventScroll: true });
  $('class-scene').querySelector('.class-body').scrollTop = 0;
}

// What the scene's scripts wrote is written again in a new language (translateDocument has
// done the page's fixed words by then).
onLanguageChange(() => {
  if ($('class-scene').hidden) return;
  paintScene();
  if (!$('join-view').hidden) paintJoin();
  if (!$('create-view').hidden) paintCreate();
});

// ---- sign in first ---------------------------------------------------------------------

/** Where to go once signed in, kept in this tab's storage so that a provider's sign-in (which
 *  leaves the page) comes back to it too. */
const RETURN_STORAGE = 'onthemap.afterSignIn';

/** An address that needs a session (a class, an invitation) opened while signed out: kept for
 *  after signing in. Says what the login card should tell the student, or null. */
export function keepForAfterSignIn(path) {
  const join = /^join\/([^/]+)\/[^/]+$/.exec(path);
  const classPage = /^c\/[^/]+\//.test(path) || path === 'classes/new';
  if (!join && !classPage) return null;
  try { sessionStorage.setItem(RETURN_STORAGE, path); } catch { /* no storage: the map follows */ }
  return join
    ? t('login.note.invitedLooking')
    : t('login.note.classPage');
}

let describing = 0;

/** An invitation opened by someone not signed in (on the sign-up form): which class and who
 *  invited them (`GET /api/invites/<slug>/<code>`, all a visitor may see), or at once, before
 *  they sign up, that the link no longer works and what to do. */
export async function describeInvitation(slug, code) {
  const attempt = ++describing;
  showTranslatedMessage('login-invite-error', '');
  let invite;
  try {
    invite = await api.request(`/api/invites/${encodeURIComponent(slug)}/${encodeURIComponent(code)}`);
  } catch (error) {
    if (attempt !== describing || state.account) return;
    if (error.status === 404) {
      showTranslatedMessage('login-note', '');
      showTranslatedMessage('login-invite-error', () => t('login.invite.invalid'));
    }
    // Offline, or an older server: the note that says they were invited stays.
    return;
  }
  if (attempt !== describing || state.account || !invite || typeof invite.name !== 'string') return;
  showTranslatedMessage('login-note', () => (typeof invite.teacher === 'string' && invite.teacher
    ? t('login.note.invitedBy', { class: isolated(invite.name), teacher: isolated(invite.teacher) })
    : t('login.note.invited', { class: isolated(invite.name) })));
}

/** Leaves what describeInvitation said (signed in now, or another page). */
export function forgetInvitation() {
  describing++;
  showTranslatedMessage('login-invite-error', '');
}

/** The address kept by keepForAfterSignIn, once (null when there is none). */
export function takeAfterSignIn() {
  try {
    const path = sessionStorage.getItem(RETURN_STORAGE);
    sessionStorage.removeItem(RETURN_STORAGE);
    return path;
  } catch {
    return null;
  }
}

// ---- #/join/<slug>/<code> ------------------------------------------------------------------

let joining = 0;
/** What the invitation page shows: the class (once known), whether it was looked up, and the
 *  failure said under it (a function of the language), so that a new language rewrites it. */
const joinPage = { view: null, looking: false, failure: null };

/** Writes the invitation page's words from joinPage, in the page's language. */
function paintJoin() {
  const { view, looking } = joinPage;
  $('join-title').textContent = !view ? t('join.title') : view.role ? view.name : t('join.heading', { class: view.name });
  $('join-text').textContent = looking ? t('join.lookingUp')
    : !view ? ''
      : view.role ? t('join.already', { class: isolated(view.name) })
        : t('join.invited', { class: isolated(view.name), visibility: view.visibility });
  showFormMessage('join-error', joinPage.failure ? joinPage.failure() : '');
  const button = $('join-button');
  if (view && !button.classList.contains('busy')) {
    button.querySelector('.button-label').textContent = t('join.button', { class: view.name });
  }
}

function showJoinFailure(make) {
  joinPage.failure = make;
  showFormMessage('join-error', make ? make() : '');
}

/** The invitation page: which class, and a Join button that takes the code. */
export async function showJoin(slug, code) {
  const attempt = ++joining;
  const button = $('join-button');
  button.hidden = true;
  $('join-open').hidden = true;
  $('join-cancel').hidden = false;
  Object.assign(joinPage, { view: null, looking: true, failure: null });
  paintJoin();
  showClassScene('join-view', {
    title: () => (joinPage.view ? t('join.heading', { class: joinPage.view.name }) : t('join.pageTitle')),
  });
  let view;
  try {
    view = await api.fetchClass(slug, code);
  } catch (error) {
    if (attempt !== joining) return;
    joinPage.looking = false;
    joinPage.failure = () => joinFailure(error, slug);
    paintJoin();
    return;
  }
  if (attempt !== joining) return;
  Object.assign(joinPage, { view, looking: false });
  paintJoin();
  paintScene();
  const open = $('join-open');
  open.setAttribute('href', `#/${linkTo('map', view.slug)}`);
  if (view.role) {
    open.hidden = false;
    return;
  }
  // The server shows a closed (or archived) class to the holder of its link, so that this
  // page can say so.
  if (view.archived || view.join === 'closed') {
    showJoinFailure(() => joinFailure({ code: view.archived ? 'class_archived' : 'join_closed' }, view.slug));
    return;
  }
  button.hidden = false;
  button.onclick = () => join(view, code, attempt);
}

async function join(view, code, attempt) {
  const button = $('join-button');
  showJoinFailure(null);
  setBusy(button, true, t('join.busy'));
  try {
    const joined = await api.joinClass(view.slug, code);
    if (attempt !== joining) return;
    classMembershipChanged(view.slug);
    classChanged(joined);
    setBusy(button, false);
    go(linkTo('map', view.slug));
  } catch (error) {
    setBusy(button, false);
    if (attempt !== joining) return;
    button.hidden = error.kind !== 'network' && error.kind !== 'server';
    showJoinFailure(() => joinFailure(error, view.slug));
  }
}

function joinFailure(error, slug) {
  switch (error.code) {
    case 'unknown_class':
      return t('join.error.unknownClass', { class: slug });
    case 'join_closed':
      return t('join.error.closed');
    case 'class_archived':
      return t('join.error.archived');
    case 'invalid_invite':
    case 'not_a_member':
      return t('join.error.invalidInvite');
    default:
      return formFailureMessage(error, t('join.failed'));
  }
}

// ---- #/classes/new ------------------------------------------------------------------------

/** What a name suggests as a slug: "Biology 101 (Fall)" → "biology-101-fall". */
export function slugFrom(name) {
  return name.normalize('NFKD').replace(/[\u0300-\u036f'’]/g, '').toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
}

let createReady = false;
/** The new-class page's failure line, a function of the language (null: none). */
let createFailure = null;

function showCreateFailure(make) {
  createFailure = make;
  showFormMessage('create-error', make ? make() : '');
}

/** The address hint: its sentence in the page's language around the address being typed
 *  (its own element, which the typing updates). */
function paintSlugHint() {
  const hint = $('create-slug-hint');
  const preview = $('create-slug-preview');
  const marker = '\u0000';
  const [before, after = ''] = t('create.slugHint', { address: marker }).split(marker);
  hint.replaceChildren(before, preview, after);
}

function paintCreate() {
  paintSlugHint();
  showFormMessage('create-error', createFailure ? createFailure() : '');
}

/** The new-class page (the server says whether this account may create one). */
export function showCreate() {
  if (!createReady) setUpCreate();
  showCreateFailure(null);
  paintSlugHint();
  showClassScene('create-view', { title: () => t('create.pageTitle'), focus: $('create-name') });
  loadClasses().then((answer) => {
    if (answer && !answer.can_create) showCreateFailure(() => t('create.error.notAllowed'));
  }, () => {});
}

function setUpCreate() {
  createReady = true;
  const name = $('create-name');
  const slug = $('create-slug');
  // The slug follows the name until the student types one.
  let slugTyped = false;
  const preview = () => { $('create-slug-preview').textContent = `/c/${slug.value || '…'}`; };
  name.addEventListener('input', () => {
    if (!slugTyped) slug.value = slugFrom(name.value);
    preview();
  });
  slug.addEventListener('input', () => {
    slugTyped = slug.value !== '';
    preview();
  });
  $('create-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = {
      name: name.value.trim(), slug: slug.value.trim(),
      visibility: $('create-visibility').value, join: $('create-join').value,
      precision: $('create-form').elements.precision.value || NEW_CLASS.precision,
      approval: $('create-form').elements.approval.value || NEW_CLASS.approval,
    };
    if (!form.name || !form.slug) {
      showCreateFailure(() => t('create.error.missing'));
      (form.name ? slug : name).focus();
      return;
    }
    showCreateFailure(null);
    const button = $('create-button');
    setBusy(button, true, t('create.busy'));
    try {
      const view = await api.createClass(form);
      classMembershipChanged(view.slug);
      classChanged(view);
      name.value = '';
      slug.value = '';
      slugTyped = false;
      $('create-form').elements.precision.value = NEW_CLASS.precision;
      $('create-form').elements.approval.value = NEW_CLASS.approval;
      preview();
      go(`c/${view.slug}/settings`);
    } catch (error) {
      showCreateFailure(() => formFailureMessage(error, t('create.failed')));
      if (error.code === 'invalid_slug' || error.code === 'slug_taken') slug.select();
      else if (error.code === 'invalid_name') name.select();
    } finally {
      setBusy(button, false);
    }
  });
}
