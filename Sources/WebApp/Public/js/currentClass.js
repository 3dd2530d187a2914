// Which class's map the page shows. The address names it (`#/c/<slug>/map`); plain addresses
// (`#/map`, `#/list`) mean the server's default class. Every request about the class's map
// (locations, snapshot, change stream, reports, moderation, /api/account) goes under its
// `/c/<slug>` prefix; the default class's go to the plain routes. Only i18n.js (which imports
// nothing) is imported, so that every module may ask.
import { t } from './i18n.js';

/** A slug as the server accepts one in an address (it checks the rest). */
const SLUG = /^[a-z0-9-]{1,40}$/;
/** The server's default class, as the last list of classes said (the same on every visit). */
const DEFAULT_STORAGE = 'onthemap.defaultClass';

/** The slug `#/c/<slug>/…` names, or null for a plain address. */
export function classInAddress(hash) {
  const match = /^#?\/?c\/([^/]+)(?:\/|$)/.exec(hash || '');
  return match && SLUG.test(match[1]) ? match[1] : null;
}

export function isSlug(text) {
  return typeof text === 'string' && SLUG.test(text);
}

let slug = classInAddress(location.hash);
let name = null;
let defaultSlug = readDefault();

function readDefault() {
  try {
    return localStorage.getItem(DEFAULT_STORAGE);
  } catch {
    return null;
  }
}

/** The class shown: its slug, or null for the default class on the plain routes. */
export function currentClass() {
  return slug;
}

/** Shows another class from now on (null: the default one); says whether it changed. */
export function setCurrentClass(next) {
  const value = next || null;
  if (value === slug) return false;
  slug = value;
  name = null;
  return true;
}

/** The shown class's name, once a class answer said it (null until then). */
export function currentClassName() {
  return name;
}

export function setCurrentClassName(value) {
  name = value || null;
}

/** The default class's slug, once the server said it. */
export function defaultClass() {
  return defaultSlug;
}

export function setDefaultClass(value) {
  if (!value || value === defaultSlug) return;
  defaultSlug = value;
  try { localStorage.setItem(DEFAULT_STORAGE, value); } catch { /* private mode: asked again */ }
}

/** Whether `of` (a slug, or null) is the default class. */
export function isDefaultClass(of) {
  return of === null || of === undefined || of === defaultSlug;
}

/** An API path for the shown class: `/c/<slug>/api/…`, or the plain path for the default. */
export function classPath(path, of = slug) {
  return of ? `/c/${of}${path}` : path;
}

/** A page address in class `of` (router.js's go() takes it): `c/<slug>/<view>`, or just
 *  `<view>` for null (the default class on its plain addresses). */
export function classAddress(view, of = slug) {
  return of ? `c/${of}/${view}` : view;
}

/** The address of class `of`'s page `view` as links give it: the default class's on its
 *  plain addresses. */
export function linkTo(view, of) {
  return classAddress(view, isDefaultClass(of) ? null : of);
}

/** "Map · Biology 101 · On the Map" (the default class's pages keep "Map · On the Map");
 *  `what`, the page's name, is given in the page's language. */
export function pageTitle(what) {
  return slug && name && slug !== defaultSlug
    ? t('app.pageTitleInClass', { page: what, class: name })
    : t('app.pageTitle', { page: what });
}
