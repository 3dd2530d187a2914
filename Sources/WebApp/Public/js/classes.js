// Classes in the map's scene: the class button in the top bar (the shown class's name) and its
// Classes sheet, which lists my classes with my role and the ones I could join (open ones, and
// those that invited my email address, marked Invited); switching
// classes; and the check, before a class named in the address loads, that I may open it.
import * as api from './api.js';
import { state } from './state.js';
import { go } from './router.js';
import {
  currentClass, setCurrentClass, currentClassName, setCurrentClassName, setDefaultClass, defaultClass,
  classAddress, linkTo, pageTitle,
} from './currentClass.js';
import { clearStudents } from './students.js';
import { moderationClassChanged } from './moderation.js';
import { el, setBusy, showAlert, formFailureMessage, showFormMessage } from './ui.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';
import { APPROVALS, PRECISIONS } from './classOptions.js';

/** Each role's name in the page's language (read when used: the getters follow the language). */
export const ROLE_NAMES = {
  get teacher() { return t('classOptions.role.teacher'); },
  get moderator() { return t('classOptions.role.moderator'); },
  get student() { return t('classOptions.role.student'); },
};

/** Whether posts in a class wait for a moderator's approval, and its location precision,
 *  finest first (js/classOptions.js, the one list of a class's options). */
export { APPROVALS, PRECISIONS };
/** Each as a short label (the Classes sheet); `off` says nothing. */
export const APPROVAL_LABELS = {
  get 'new-members'() { return t('classOptions.approval.newMembers.short'); },
  get all() { return t('classOptions.approval.all.short'); },
};

/** Each level as a short label (the Classes sheet, the settings' introduction). */
export const PRECISION_LABELS = {
  get exact() { return t('classOptions.precision.exact.short'); },
  get city() { return t('classOptions.precision.city.short'); },
  get region() { return t('classOptions.precision.region.short'); },
  get country() { return t('classOptions.precision.country.short'); },
};

/** Whether `next` shows less than `current` (moving existing posts, for good). */
export function isCoarser(next, current) {
  return PRECISIONS.indexOf(next) > PRECISIONS.indexOf(current);
}

/** The shown class's precision as far as known (null until a class answer said it). */
export function shownPrecision() {
  const view = knownClass(currentClass() || defaultClass());
  return view && PRECISIONS.includes(view.precision) ? view.precision : null;
}

/** The shown class's approval as far as known (null until a class answer said it). */
export function shownApproval() {
  const view = knownClass(currentClass() || defaultClass());
  return view && APPROVALS.includes(view.approval) ? view.approval : null;
}

/** Whether the shown class is archived, as far as known (false until a class answer said it). */
export function shownArchived() {
  const view = knownClass(currentClass() || defaultClass());
  return Boolean(view && view.archived);
}

/** Asks the server again whether the shown class is archived (after it refused a post that
 *  the last answer would have let through); resolves to false when it cannot say. */
export async function checkArchived() {
  const slug = currentClass() || defaultClass();
  if (!slug) return false;
  try {
    const view = await api.fetchClass(slug);
    classChanged(view);
    return Boolean(view && view.archived);
  } catch {
    return false;
  }
}

/** The last list of classes (`api.fetchClasses`), for the account it was asked for. */
let listed = null;
let listedFor = null;
let listing = null;
/** Classes the signed-in account may open: `<account key> <slug>`, with their answers. */
const opened = new Map();
/** The same, being asked. */
const opening = new Map();

/** The class view `slug` last answered with (from the list or its own answer), or null. */
export function knownClass(slug) {
  if (!slug) return null;
  const view = opened.get(openKey(slug));
  if (view) return view;
  return listed ? [...listed.classes, ...listed.joinable].find((item) => item.slug === slug) || null : null;
}

function openKey(slug) {
  return `${state.account ? state.account.key : ''} ${slug}`;
}

/** The list of classes, asked for once per account (again with `fresh`). */
export function loadClasses({ fresh = false } = {}) {
  const key = state.account ? state.account.key : null;
  if (!key) return Promise.resolve(null);
  if (!fresh && listedFor === key && (listing || listed)) return listing || Promise.resolve(listed);
  listedFor = key;
  const job = api.fetchClasses().then((answer) => {
    if (listing !== job) return listed;
    listing = null;
    listed = answer;
    setDefaultClass(answer.default_class);
    showClassName();
    return answer;
  }, (error) => {
    if (listing === job) listing = null;
    throw error;
  });
  listing = job;
  return job;
}

/** Forgets what was learnt for the account (after a logout). */
export function forgetClasses() {
  listed = null;
  listedFor = null;
  listing = null;
  opened.clear();
}

/** Puts the shown class's name on the class button, in the page title, and (`announce`) says
 *  it to screen readers. */
function showClassName({ announce = false } = {}) {
  const slug = currentClass() || defaultClass();
  const view = knownClass(slug);
  if (view) setCurrentClassName(view.name);
  const name = currentClassName() || (currentClass() ? currentClass() : t('classes.title'));
  $('class-name').textContent = name;
  const role = view && view.role ? ROLE_NAMES[view.role] || view.role : null;
  const archived = Boolean(view && view.archived);
  const about = role && archived ? 'both' : role ? 'role' : archived ? 'archived' : 'none';
  $('class-button').title = t('classes.buttonTitle', { about, class: name, role });
  if (!$('main-scene').hidden) {
    document.title = pageTitle(t(`tabs.${state.tab}`));
  }
  if (announce && currentClassName()) {
    const shown = { class: currentClassName() };
    $('class-status').textContent = archived ? t('classes.showingArchived', shown) : t('classes.showing', shown);
  }
}

/** The address shows class `slug` (null: the default class): when that is another class than
 *  the one shown, everything shown for the last one goes (map, list, search, live stream,
 *  Moderate button). Says whether it changed. */
export function switchClass(slug) {
  if (!setCurrentClass(slug)) return false;
  clearStudents();
  moderationClassChanged();
  $('class-status').textContent = '';
  showClassName({ announce: true });
  return true;
}

/**
 * Whether the signed-in account may open class `slug` (null: the default class, always):
 * true at once when known, else a promise of it. A class that does not exist, or that the
 * account is not a member of, is said in an alert and the address goes to the default map.
 * Without an answer (offline, a server error) it opens anyway: the kept copy may show.
 */
export function openClass(slug) {
  if (!slug) return true;
  const key = openKey(slug);
  if (opened.has(key)) return true;
  if (!opening.has(key)) opening.set(key, askToOpen(slug, key).finally(() => opening.delete(key)));
  return opening.get(key);
}

function askToOpen(slug, key) {
  return api.fetchClass(slug).then((view) => {
    opened.set(key, view);
    if (currentClass() === slug) showClassName({ announce: true });
    return true;
  }, async (error) => {
    if (error.kind === 'network' || error.kind === 'server') return true;
    if (currentClass() !== slug || !state.account) return false;
    if (error.status === 401) return false; // the session ended: session.js shows the login
    const [title, message] = error.status === 404
      ? [t('classes.noSuchClass.title'), t('classes.noSuchClass.message', { class: slug })]
      : [t('classes.notMember.title'), t('classes.notMember.message', { class: slug })];
    go(classAddress(state.tab, null));
    await showAlert(title, message);
    return false;
  });
}

/** Remembers what a class answered (joining, saving its settings) for the button and sheet. */
export function classChanged(view) {
  if (!view || !view.slug) return;
  opened.set(openKey(view.slug), view);
  if (listed) {
    for (const list of [listed.classes, listed.joinable]) {
      const index = list.findIndex((item) => item.slug === view.slug);
      if (index >= 0) {
        list[index] = {
          ...list[index], name: view.name, visibility: view.visibility, join: view.join, precision: view.precision,
          approval: view.approval, archived: view.archived,
        };
      }
    }
  }
  if ((currentClass() || defaultClass()) === view.slug) {
    setCurrentClassName(view.name);
    showClassName();
  }
}

/** A class left or joined: the list is asked for again, and the class is checked again. */
export function classMembershipChanged(slug) {
  opened.delete(openKey(slug));
  loadClasses({ fresh: true }).catch(() => {});
}

// ---- the Classes sheet --------------------------------------------------------------

const ROLE_ORDER = { teacher: 0, moderator: 1, student: 2 };

class ClassesSheet {
  constructor() {
    this.dialog = $('classes');
    $('classes-close').addEventListener('click', () => this.dialog.close());
    // A link to a class (its map, its settings) closes the sheet as it goes there.
    this.dialog.addEventListener('click', (event) => {
      if (event.target.closest('a[href^="#/"]')) this.dialog.close();
    });
    $('joinable-classes').addEventListener('click', (event) => {
      const button = event.target.closest('[data-join]');
      if (button) this.join(button.dataset.join, button);
    });
    // The sheet's lists are built here: a new language builds them again.
    this.status = null;
    this.failure = null;
    onLanguageChange(() => {
      if (!this.dialog.open) return;
      if (listed && listedFor === (state.account && state.account.key)) this.render(listed);
      else if (this.status) $('classes-status').textContent = this.status();
      if (this.failure) showFormMessage('classes-error', this.failure());
    });
  }

  /** The sheet's error line (a function of the language, so that a new language rewrites it). */
  showFailure(make) {
    this.failure = make;
    showFormMessage('classes-error', make ? make() : '');
  }

  open() {
    this.showFailure(null);
    if (listed && listedFor === state.account.key) this.render(listed);
    else {
      this.status = () => t('classes.loading');
      $('classes-status').textContent = this.status();
    }
    this.dialog.showModal();
    loadClasses({ fresh: true }).then((answer) => {
      if (answer && this.dialog.open) this.render(answer);
    }, (error) => {
      this.status = null;
      $('classes-status').textContent = '';
      if (!listed) this.showFailure(() => formFailureMessage(error, t('classes.loadFailed')));
    });
  }

  render(answer) {
    const shown = currentClass() || answer.default_class;
    const mine = [...answer.classes].sort((a, b) =>
      (a.slug === answer.default_class ? -1 : b.slug === answer.default_class ? 1 : 0) ||
      (ROLE_ORDER[a.role] ?? 3) - (ROLE_ORDER[b.role] ?? 3) || a.name.localeCompare(b.name));
    $('my-classes').replaceChildren(...mine.map((item) => this.classRow(item, item.slug === shown)));
    $('my-classes-section').hidden = mine.length === 0;
    // An archived class takes no new members: it is not offered. (Those that invited me come first.)
    const joinable = answer.joinable.filter((item) => !item.archived);
    $('joinable-classes').replaceChildren(...joinable.map((item) => this.joinableRow(item)));
    $('joinable-section').hidden = joinable.length === 0;
    $('create-class-link').hidden = !answer.can_create;
    this.status = () => (mine.length === 0 && joinable.length === 0
      ? t('classes.none')
      : t('classes.count', { count: mine.length }));
    $('classes-status').textContent = this.status();
  }

  classRow(item, current) {
    const precision = PRECISION_LABELS[item.precision];
    const about = [ROLE_NAMES[item.role], item.archived ? t('classes.archived') : null, precision, APPROVAL_LABELS[item.approval],
      current ? t('classes.shownNow') : null].filter(Boolean).join(' · ');
    const link = el('a', {
      class: 'class-row', href: `#/${linkTo('map', item.slug)}`, 'aria-current': current ? 'true' : null,
      dataset: { slug: item.slug },
    }, [
      el('span', { class: 'class-row-name', dir: 'auto', text: item.name }),
      el('span', { class: 'class-row-role', text: about }),
    ]);
    const settings = el('a', {
      class: 'text-button class-row-settings', href: `#/c/${item.slug}/settings`,
      'aria-label': t('classes.settingsOf', { class: item.name }), text: t('classes.settings'),
    });
    // Its teachers and moderators may show it on the classroom's projector (js/present.js).
    const present = item.role === 'teacher' || item.role === 'moderator'
      ? el('a', {
        class: 'text-button class-row-present', href: `#/c/${item.slug}/present`,
        'aria-label': t('classes.presentOf', { class: item.name }), text: t('classes.present'),
      })
      : null;
    return el('li', { class: 'class-item' }, [link, present, settings]);
  }

  joinableRow(item) {
    const button = el('button', {
      class: 'button secondary small', type: 'button', dataset: { join: item.slug }, 'aria-label': t('join.button', { class: item.name }),
    }, [el('span', { class: 'spinner', 'aria-hidden': 'true' }), el('span', { class: 'button-label', text: t('join.join') })]);
    const about = [item.invited ? t('classes.invited') : null, PRECISION_LABELS[item.precision], APPROVAL_LABELS[item.approval]]
      .filter(Boolean).join(' · ');
    return el('li', { class: 'class-item' }, [
      el('span', { class: 'class-row' }, [
        el('span', { class: 'class-row-name', dir: 'auto', text: item.name }),
        about ? el('span', { class: 'class-row-role', text: about }) : null,
      ]),
      button,
    ]);
  }

  async join(slug, button) {
    this.showFailure(null);
    setBusy(button, true, t('join.busy'));
    try {
      const view = await api.joinClass(slug);
      classMembershipChanged(slug);
      classChanged(view);
      this.dialog.close();
      go(linkTo('map', slug));
    } catch (error) {
      setBusy(button, false);
      this.showFailure(() => formFailureMessage(error, t('join.failed')));
    }
  }
}

let sheet = null;
/** The class button's name waits for the map's markers (or this at the latest), so that the
 *  list of classes does not hold up the map's first download. */
const LIST_LATEST_MS = 4000;

/** The class button opens the Classes sheet; the list of classes (the button's name) is
 *  asked for once the map is drawn. */
export function setUpClasses() {
  $('class-button').addEventListener('click', () => {
    sheet ??= new ClassesSheet();
    sheet.open();
  });
  const list = () => {
    if (state.account) loadClasses().catch(() => {});
  };
  document.addEventListener('onthemap:markers-ready', list);
  setTimeout(list, LIST_LATEST_MS);
  // The class button's name (when no class is known yet) and its title follow the language.
  onLanguageChange(() => showClassName());
}
