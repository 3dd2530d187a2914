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
import { t } from './i18n.js';

const VIEWS = ['join-view', 'settings-view', 'create-view'];
const VISIBILITY_WORDS = {
  members: 'Only its members see its map.',
  server: 'Everyone with an account on this server sees its map.',
  public: 'Anyone sees its map, even without an account.',
};

/** Shows the class scene with page `view`; `back` is the address its back link goes to.
 *  The focus goes to `focus` (the page's heading unless said), as on a new page. */
export function showClassScene(view, { back = 'map', backLabel = 'Map', title, focus } = {}) {
  showingSignedIn(true);
  $('login-scene').hidden = true;
  $('main-scene').hidden = true;
  $('class-scene').hidden = false;
  for (const id of VIEWS) $(id).hidden = id !== view;
  $('class-back').setAttribute('href', `#/${back}`);
  $('class-back-label').textContent = backLabel;
  document.title = `${title} · On the Map`;
  const target = focus || $(view).querySelector('.class-page-title');
  if (target) target.focus({ preventScroll: true });
  $('class-scene').querySelector('.class-body').scrollTop = 0;
}

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
    ? t('login.note.invited', { class: join[1] })
    : t('login.note.classPage');
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

/** The invitation page: which class, and a Join button that takes the code. */
export async function showJoin(slug, code) {
  const attempt = ++joining;
  const button = $('join-button');
  const text = $('join-text');
  button.hidden = true;
  $('join-open').hidden = true;
  $('join-cancel').hidden = false;
  showFormMessage('join-error', '');
  $('join-title').textContent = 'Join a class';
  text.textContent = 'Looking up the class…';
  showClassScene('join-view', { title: 'Join a Class' });
  let view;
  try {
    view = await api.fetchClass(slug, code);
  } catch (error) {
    if (attempt !== joining) return;
    text.textContent = '';
    showFormMessage('join-error', joinFailure(error, slug));
    return;
  }
  if (attempt !== joining) return;
  $('join-title').textContent = view.role ? view.name : `Join ${view.name}`;
  document.title = `Join ${view.name} · On the Map`;
  const open = $('join-open');
  open.setAttribute('href', `#/${linkTo('map', view.slug)}`);
  if (view.role) {
    text.textContent = `You are already in ${view.name}.`;
    open.hidden = false;
    return;
  }
  text.textContent = `You are invited to join ${view.name}. ${VISIBILITY_WORDS[view.visibility] || ''}`.trim();
  // The server shows a closed (or archived) class to the holder of its link, so that this
  // page can say so.
  if (view.archived || view.join === 'closed') {
    showFormMessage('join-error', joinFailure({ code: view.archived ? 'class_archived' : 'join_closed' }, view.slug));
    return;
  }
  button.querySelector('.button-label').textContent = `Join ${view.name}`;
  button.hidden = false;
  button.onclick = () => join(view, code, attempt);
}

async function join(view, code, attempt) {
  const button = $('join-button');
  showFormMessage('join-error', '');
  setBusy(button, true, 'Joining…');
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
    showFormMessage('join-error', joinFailure(error, view.slug));
  }
}

function joinFailure(error, slug) {
  switch (error.code) {
    case 'unknown_class':
      return `This server has no class “${slug}”. Check the link your teacher gave you.`;
    case 'join_closed':
      return 'This class takes no new members now: its teacher closed the class. Ask them to add you.';
    case 'class_archived':
      return 'This class is archived: its teacher ended the term, so it takes no new members.';
    case 'invalid_invite':
    case 'not_a_member':
      return 'This invite link does not work any more: the teacher made a new one, revoked it, or closed the class to new members. Ask your teacher for the current link.';
    default:
      return formFailureMessage(error, 'Joining the class failed.');
  }
}

// ---- #/classes/new ------------------------------------------------------------------------

/** What a name suggests as a slug: "Biology 101 (Fall)" → "biology-101-fall". */
export function slugFrom(name) {
  return name.normalize('NFKD').replace(/[\u0300-\u036f'’]/g, '').toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
}

let createReady = false;

/** The new-class page (the server says whether this account may create one). */
export function showCreate() {
  if (!createReady) setUpCreate();
  showFormMessage('create-error', '');
  showClassScene('create-view', { title: 'Create a Class', focus: $('create-name') });
  loadClasses().then((answer) => {
    if (answer && !answer.can_create) {
      showFormMessage('create-error', 'Only this server’s administrators can create classes here. Ask one to make your class, or to make you its teacher.');
    }
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
      precision: $('create-form').elements.precision.value || 'city',
      approval: $('create-form').elements.approval.value || 'off',
    };
    if (!form.name || !form.slug) {
      showFormMessage('create-error', 'Give the class a name and a short address.');
      (form.name ? slug : name).focus();
      return;
    }
    showFormMessage('create-error', '');
    const button = $('create-button');
    setBusy(button, true, 'Creating…');
    try {
      const view = await api.createClass(form);
      classMembershipChanged(view.slug);
      classChanged(view);
      name.value = '';
      slug.value = '';
      slugTyped = false;
      $('create-form').elements.precision.value = 'city';
      $('create-form').elements.approval.value = 'off';
      preview();
      go(`c/${view.slug}/settings`);
    } catch (error) {
      showFormMessage('create-error', formFailureMessage(error, 'Creating the class failed.'));
      if (error.code === 'invalid_slug' || error.code === 'slug_taken') slug.select();
      else if (error.code === 'invalid_name') name.select();
    } finally {
      setBusy(button, false);
    }
  });
}
