// Small DOM helpers shared by the scenes. User data only ever reaches the page
// through textContent and vetted href attributes, never through innerHTML.
import { t, formatNumber, formatRelativeTime, formatWait } from './i18n.js';

/** Creates an element: el('a', { class: 'x', text: 'hi', href: '...' }, [children]). */
export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else if (name === 'class') node.className = value;
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name === 'href') node.setAttribute('href', value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

/** 12345 → "12,345" in English, "12.345" in German (Intl.NumberFormat; its data is loaded
 *  with the catalogue, before the map's first draw). */
export function formatCount(count) {
  return formatNumber(count);
}

/** The http(s) URL a stored link points to, or null when it must not be clickable.
 *  A bare host such as `www.example.com/in/me` (as old clients stored) becomes https://. */
export function safeURL(raw) {
  if (typeof raw !== 'string') return null;
  let text = raw.trim();
  if (!text || /\s/.test(text)) return null;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?([/?#].*)?$/i.test(text)) return null;
    text = 'https://' + text;
  }
  let url;
  try { url = new URL(text); } catch { return null; }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!url.hostname || url.username || url.password) return null;
  return url.href;
}

/** `linkedin.com` for `https://www.linkedin.com/in/me`. */
export function linkHost(href) {
  try {
    return new URL(href).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** "just now", "5 minutes ago", "hace 2 horas", then a date (Intl.RelativeTimeFormat). */
export function timeAgo(value, now = Date.now()) {
  return formatRelativeTime(value, now);
}

/** "48.8584° N, 2.2945° E" (the letters and separator from the catalogue). */
export function formatCoordinates(latitude, longitude) {
  const lat = Number(latitude);
  const lng = Number(longitude);
  if (!Number.isFinite(lat) || !Number.isFinite(lng)) return '';
  return t('coordinates.format', {
    latitude: `${Math.abs(lat).toFixed(4)}°`,
    latitudeSide: lat >= 0 ? 'north' : 'south',
    longitude: `${Math.abs(lng).toFixed(4)}°`,
    longitudeSide: lng >= 0 ? 'east' : 'west',
  });
}

export function fullName(location) {
  const name = `${location.firstName || ''} ${location.lastName || ''}`.trim();
  return name || t('student.anonymous');
}

export function initials(location) {
  const a = (location.firstName || '').trim()[0] || '';
  const b = (location.lastName || '').trim()[0] || '';
  return (a + b).toUpperCase() || '?';
}

/** A stable hue per student, for the avatar circle. */
export function hueFor(text) {
  let hash = 0;
  for (const ch of String(text)) hash = (hash * 31 + ch.codePointAt(0)) | 0;
  return Math.abs(hash) % 360;
}

/** Puts a button into (or out of) its "working" state. */
export function setBusy(button, busy, busyLabel) {
  const label = button.querySelector('.button-label');
  if (busy) {
    if (label && !button.dataset.idleLabel) button.dataset.idleLabel = label.textContent;
    if (label && busyLabel) label.textContent = busyLabel;
    button.classList.add('busy');
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
  } else {
    if (label && button.dataset.idleLabel) label.textContent = button.dataset.idleLabel;
    delete button.dataset.idleLabel;
    button.classList.remove('busy');
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/** A title and message for a failed download or upload: network versus server. `what` is
 *  the failed action, already translated ("loading the album": t('failure.what.…')). */
/** A 429's words in the page's language (the server's own are English), with how long to
 *  wait from its `Retry-After` (a minute when it gave none); null for other failures. `key`:
 *  the message, one with a `{wait}`. */
export function tooManyMessage(error, key = 'error.tooMany') {
  if (!error || error.status !== 429) return null;
  return t(key, { wait: formatWait(error.retryAfter ?? 60) });
}

export function describeFailure(error, what) {
  const tooMany = tooManyMessage(error);
  if (tooMany) return { title: t('failure.other.title'), message: t('failure.other.message', { what, reason: tooMany }) };
  if (error && error.kind === 'network') {
    return { title: t('failure.network.title'), message: t('failure.network.message', { what }) };
  }
  if (error && error.kind === 'server') {
    return { title: t('failure.server.title'), message: t('failure.server.message', { what, status: String(error.status || ''), reason: error.message || '' }) };
  }
  return { title: t('failure.other.title'), message: t('failure.other.message', { what, reason: error && error.message ? error.message : t('failure.unknownReason') }) };
}

/** The line under a form when `error` stopped it: network and server trouble read the
 *  same on every form; otherwise the server's own words, or `fallback`. */
export function formFailureMessage(error, fallback) {
  if (error.kind === 'network') return t('error.network');
  if (error.status === 429) return tooManyMessage(error);
  if (error.kind === 'server') return t('error.server', { status: String(error.status) });
  return error.message || fallback;
}

/** Shows `message` in the form's message box (by id), or hides the box when empty. */
export function showFormMessage(id, message) {
  const box = document.getElementById(id);
  box.textContent = message || '';
  box.hidden = !message;
}

// ---- alert and confirm -----------------------------------------------------

const queue = [];
let showing = false;

/** Shows a modal alert; resolves when dismissed. */
export function showAlert(title, message) {
  return enqueue({ title, message, ok: t('common.ok'), cancel: null });
}

/** Shows a confirmation; resolves to true when the user picks `ok`. */
export function confirmAction(title, message, ok = t('common.ok'), cancel = t('common.cancel')) {
  return enqueue({ title, message, ok, cancel });
}

function enqueue(item) {
  return new Promise((resolve) => {
    queue.push({ ...item, resolve });
    if (!showing) next();
  });
}

function next() {
  const item = queue.shift();
  if (!item) { showing = false; return; }
  showing = true;
  const dialog = document.getElementById('alert');
  const okButton = document.getElementById('alert-ok');
  const cancelButton = document.getElementById('alert-cancel');
  document.getElementById('alert-title').textContent = item.title;
  document.getElementById('alert-message').textContent = item.message;
  okButton.textContent = item.ok;
  cancelButton.hidden = !item.cancel;
  if (item.cancel) cancelButton.textContent = item.cancel;
  dialog.classList.toggle('destructive', Boolean(item.cancel));

  const finish = (answer) => {
    okButton.removeEventListener('click', onOk);
    cancelButton.removeEventListener('click', onCancel);
    dialog.removeEventListener('cancel', onEscape);
    dialog.close();
    item.resolve(answer);
    next();
  };
  const onOk = () => finish(true);
  const onCancel = () => finish(false);
  const onEscape = (event) => { event.preventDefault(); finish(false); };
  okButton.addEventListener('click', onOk);
  cancelButton.addEventListener('click', onCancel);
  dialog.addEventListener('cancel', onEscape);
  dialog.showModal();
  okButton.focus();
}

/** Calls fn at most once per `wait` ms after the last call. */
export function debounce(fn, wait) {
  let timer = null;
  const debounced = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), wait);
  };
  debounced.cancel = () => clearTimeout(timer);
  return debounced;
}
