import { formatMessage, formatNumberIn } from './messageFormat.js';

// The app's languages: which one a student reads, its catalogue (locales/<tag>.json, flat
// keys to ICU-style messages), t(key, params) and the page's data-i18n attributes.
// docs/architecture/decisions/0035-languages.md says why it is this small and our own.

/** Every language the app offers, each named in itself (the login screen's choice), with its
 *  direction and plural categories: languages.json, the app's one list of them (the service
 *  worker, the server's and the tests' follow it). English alone until it has loaded, which
 *  `ready` and setLanguage wait for. */
export let LANGUAGES = [{ tag: 'en', name: 'English', dir: 'ltr', plurals: ['one', 'other'] }];
export const DEFAULT_LANGUAGE = 'en';
/** Where a student's own choice is kept (localStorage). */
export const STORAGE_KEY = 'onthemap.language';
/** However slow the catalogue, the page shows (in English) after this long. */
const REVEAL_AFTER_MS = 2500;

/** Settles once LANGUAGES is languages.json's (never rejects: without it, English only). */
const languagesLoaded = fetch('/languages.json')
  .then((response) => {
    if (!response.ok) throw new Error(`languages.json: HTTP ${response.status}`);
    return response.json();
  })
  .then((list) => { LANGUAGES = list; })
  .catch((error) => console.warn(`i18n: ${error.message}; English only`));

const primary = (tag) => String(tag).toLowerCase().split('-')[0];
/** A tag of LANGUAGES, any case, to its own spelling. */
const byLowerTag = (lower) => LANGUAGES.find(({ tag }) => tag.toLowerCase() === lower);
/** A browser's primary subtag to the first language of LANGUAGES that has it (pt → pt-BR). */
const byPrimary = (lower) => LANGUAGES.find(({ tag }) => primary(tag) === primary(lower));

/** The catalogue for a saved choice, else the first of the browser's languages we have
 *  (its full tag, then its primary subtag), else English. */
export function pickLanguage(saved, preferred) {
  if (saved && byLowerTag(String(saved).toLowerCase())) return byLowerTag(String(saved).toLowerCase()).tag;
  for (const tag of preferred || []) {
    const lower = String(tag).toLowerCase();
    const found = byLowerTag(lower) || byPrimary(lower);
    if (found) return found.tag;
  }
  return DEFAULT_LANGUAGE;
}

/** Whether the language of `tag` (or of its primary subtag) is written right to left. */
export function isRTL(tag) {
  const found = byPrimary(String(tag).toLowerCase());
  return Boolean(found && found.dir === 'rtl');
}

// ---- messages: the ICU subset of js/messageFormat.js ----------------------------------------

export { formatMessage };

/** t() over one catalogue: a key it lacks comes from `fallback` (English), reported once. */
export function createTranslator({ locale = DEFAULT_LANGUAGE, messages = {}, fallback = {}, warn = (text) => console.warn(text) } = {}) {
  const reported = new Set();
  return function translate(key, params) {
    let message = messages[key];
    let messageLocale = locale;
    if (typeof message !== 'string') {
      if (!reported.has(key)) {
        reported.add(key);
        warn(`i18n: "${key}" is missing from the ${locale} catalogue${typeof fallback[key] === 'string' ? '; English shown' : ''}`);
      }
      message = fallback[key];
      messageLocale = DEFAULT_LANGUAGE;
      if (typeof message !== 'string') return key;
    }
    try {
      return formatMessage(message, params, messageLocale);
    } catch (error) {
      warn(`i18n: "${key}" in the ${locale} catalogue: ${error.message}`);
      return message;
    }
  };
}

/** A catalogue from the server (the service worker keeps them for offline use). */
export async function loadCatalogue(tag) {
  const response = await fetch(`/locales/${tag}.json`);
  if (!response.ok) throw new Error(`catalogue ${tag}: HTTP ${response.status}`);
  return response.json();
}

// ---- the page's language -------------------------------------------------------------------

let current = DEFAULT_LANGUAGE;
let translator = createTranslator();
const listeners = new Set();
const catalogues = new Map();

function catalogue(tag) {
  if (!catalogues.has(tag)) {
    const loading = loadCatalogue(tag);
    loading.catch(() => catalogues.delete(tag));
    catalogues.set(tag, loading);
  }
  return catalogues.get(tag);
}

/** The message for `key` in the page's language (English where the catalogue lacks it). */
export function t(key, params) {
  return translator(key, params);
}

/** The page's language (a tag of LANGUAGES). */
export function language() {
  return current;
}

/** 12345 as the page's language writes it ("12,345", "12.345", "١٢٬٣٤٥"). */
export function formatNumber(value) {
  return formatNumberIn(current, value);
}

/** A wait of `seconds` in words of the page's language ("40 seconds", "3 Minuten"): seconds
 *  below a minute and a half, whole minutes (rounded up) from there. */
export function formatWait(seconds) {
  const minutes = seconds >= 90;
  const unit = minutes ? 'minute' : 'second';
  const amount = minutes ? Math.ceil(seconds / 60) : Math.max(1, Math.ceil(seconds));
  return new Intl.NumberFormat(current, { style: 'unit', unit, unitDisplay: 'long' }).format(amount);
}

const dateFormats = new Map();

/** A date (Date, epoch ms or ISO text) through Intl.DateTimeFormat in the page's language;
 *  `options` as Intl's, by default the day and the time ("24 Nov 2026, 09:30"). */
export function formatDate(value, options = { dateStyle: 'medium', timeStyle: 'short' }) {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const key = `${current}|${JSON.stringify(options)}`;
  if (!dateFormats.has(key)) dateFormats.set(key, new Intl.DateTimeFormat(current, options));
  return dateFormats.get(key).format(date);
}

const relativeFormats = new Map();

/** How long ago (or until) `value` is, in the page's language, through
 *  Intl.RelativeTimeFormat: "just now" under a minute, then minutes, hours and days
 *  ("5 minutes ago", "hace 2 horas", "قبل ٣ أيام"), then the date itself past 30 days. */
export function formatRelativeTime(value, now = Date.now()) {
  const time = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number(value);
  if (!Number.isFinite(time)) return '';
  const seconds = Math.round((time - now) / 1000);
  const magnitude = Math.abs(seconds);
  if (!relativeFormats.has(current)) relativeFormats.set(current, new Intl.RelativeTimeFormat(current, { numeric: 'auto' }));
  const relative = relativeFormats.get(current);
  if (magnitude < 60) return t('time.justNow');
  if (magnitude < 3600) return relative.format(Math.trunc(seconds / 60), 'minute');
  if (magnitude < 86400) return relative.format(Math.trunc(seconds / 3600), 'hour');
  if (magnitude < 30 * 86400) return relative.format(Math.trunc(seconds / 86400), 'day');
  const sameYear = new Date(time).getFullYear() === new Date(now).getFullYear();
  return formatDate(time, sameYear ? { month: 'short', day: 'numeric' } : { dateStyle: 'medium' });
}

/** Fills a <select> with every language, each named in itself (and in its own direction),
 *  showing the page's language and following every change of it; `choose(tag)` runs when
 *  the student picks one. */
export function fillLanguageChoice(select, choose) {
  const fill = () => {
    select.replaceChildren(...LANGUAGES.map(({ tag, name }) => {
      const option = new Option(name, tag);
      option.lang = tag;
      if (isRTL(tag)) option.dir = 'rtl';
      return option;
    }));
    select.value = current;
  };
  fill();
  languagesLoaded.then(() => { if (select.options.length !== LANGUAGES.length) fill(); });
  select.addEventListener('change', () => choose(select.value));
  onLanguageChange((tag) => { select.value = tag; });
}

/** Called with the new tag after every change of language (after the page is translated). */
export function onLanguageChange(callback) {
  listeners.add(callback);
  return () => listeners.delete(callback);
}

/** Fills in every `data-i18n="key"` (its text) and `data-i18n-attr="attr:key;attr2:key2"`
 *  under `root` (the whole document by default: <title> and <meta> too). */
export function translateDocument(root = document) {
  const scope = root.querySelectorAll ? root : document;
  const elements = [...scope.querySelectorAll('[data-i18n], [data-i18n-attr]')];
  if (root.matches && root.matches('[data-i18n], [data-i18n-attr]')) elements.unshift(root);
  for (const element of elements) {
    const key = element.getAttribute('data-i18n');
    if (key) {
      const text = t(key);
      if (element.textContent !== text) element.textContent = text;
    }
    const attributes = element.getAttribute('data-i18n-attr');
    if (!attributes) continue;
    for (const pair of attributes.split(';')) {
      const [name, attributeKey] = pair.split(':').map((part) => part.trim());
      if (name && attributeKey) element.setAttribute(name, t(attributeKey));
    }
  }
}

function reveal() {
  document.documentElement.classList.remove('i18n-pending');
}

function savedChoice() {
  try { return localStorage.getItem(STORAGE_KEY); } catch { return null; }
}

/** The server's own pages (sign-in, course launches) and messages follow the page's language
 *  through this cookie (it holds nothing but the tag); English picked by nobody needs none. */
function rememberForServer(tag) {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = tag === DEFAULT_LANGUAGE && !savedChoice()
    ? `onthemap_language=; Path=/; Max-Age=0; SameSite=Lax${secure}`
    : `onthemap_language=${tag}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
}

/** Loads `tag`'s catalogue (and English behind it), then translates the page. */
async function apply(tag) {
  // Another language still works when English (its fallback) could not be loaded.
  const [english, messages] = await Promise.all([
    tag === DEFAULT_LANGUAGE ? catalogue(DEFAULT_LANGUAGE) : catalogue(DEFAULT_LANGUAGE).catch(() => ({})),
    tag === DEFAULT_LANGUAGE ? null : catalogue(tag),
  ]);
  // index.html runs this module early (async, beside snapshot.js) so the catalogue downloads
  // alongside the map's data: the page it translates may not be parsed yet.
  if (document.readyState === 'loading') {
    await new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }));
  }
  current = tag;
  translator = createTranslator({ locale: tag, messages: messages || english, fallback: english });
  const html = document.documentElement;
  html.lang = tag;
  html.dir = isRTL(tag) ? 'rtl' : 'ltr';
  rememberForServer(tag);
  formatNumberIn(tag, 0); // Intl's data for the language loads now, not at the map's first draw
  translateDocument(document);
  reveal();
  for (const listener of listeners) {
    try { listener(tag); } catch (error) { console.error(error); }
  }
}

/** A student's choice: kept on this device, and the page re-translated at once. */
export async function setLanguage(tag) {
  await languagesLoaded;
  const chosen = pickLanguage(tag, []);
  try { localStorage.setItem(STORAGE_KEY, chosen); } catch { /* private mode: this visit only */ }
  await apply(chosen);
}

/** Settles once the page is in its language, or in English after an error or REVEAL_AFTER_MS
 *  (never rejects: a catalogue that failed to load never keeps the app from starting). */
export const ready = (() => {
  const timeout = new Promise((resolve) => setTimeout(resolve, REVEAL_AFTER_MS));
  catalogue(DEFAULT_LANGUAGE).catch(() => {}); // every language's fallback, beside languages.json
  const applying = languagesLoaded.then(() => {
    const tag = pickLanguage(savedChoice(), navigator.languages || [navigator.language]);
    return apply(tag).catch((error) => {
      console.warn(`i18n: ${error.message}; the page stays in English`);
      if (tag !== DEFAULT_LANGUAGE) return apply(DEFAULT_LANGUAGE).catch(() => {});
      return undefined;
    });
  });
  return Promise.race([applying, timeout]).finally(reveal);
})();
