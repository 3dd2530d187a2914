// "Near you" at the top of the List tab: from the signed-in student's own pin, the classmates
// nearest to them with how far (no finer than the class shows: "same town", "about 25 km")
// and the time where each is; and the local time ("21:00 there") on list rows and map cards.
// Everything comes from the map's snapshot already in the page (its points and their time
// zones): no request per classmate. A keyboard or screen reader reaches it as any list.
import { state } from './state.js';
import { el, fullName } from './ui.js';
import { t, language, onLanguageChange } from './i18n.js';
import { nearest, shownDistance, formatDistance } from './nearMe.js';
import { localTime, wallClock, now } from './localTime.js';
import { $ } from './dom.js';

/** Shown at first, and after "Show more". */
const FIRST = 20;
const MOST = 50;

let shown = FIRST;
let precisionOf = () => null;
let drawing = 0;

/** The time zone of a location: its own (a map point's, from the snapshot) or, for a row of
 *  the Parse list, that of the same post on the map; null when unknown. */
export function timeZoneOf(location) {
  if (!location) return null;
  if (typeof location.timeZone === 'string' && location.timeZone) return location.timeZone;
  const map = state.map;
  if (!map || !location.objectId || !map.clusters.size) return null;
  const point = map.pointsByObjectId.get(location.objectId);
  return point ? point.timeZone : null;
}

/** "21:00 there" for a location (a `<time>` the minute ticker keeps current), or null. */
export function localTimeElement(location, className = 'local-time') {
  const zone = timeZoneOf(location);
  const time = localTime(zone, language(), now());
  if (!time) return null;
  return el('time', {
    class: className, datetime: wallClock(zone, now()), dataset: { timeZone: zone }, text: t('time.there', { time }),
  });
}

/** Every shown local time, said again (each minute, and for a test's clock). */
export function refreshLocalTimes() {
  const at = now();
  for (const element of document.querySelectorAll('time[data-time-zone]')) {
    const time = localTime(element.dataset.timeZone, language(), at);
    if (!time) continue;
    const text = t('time.there', { time });
    if (element.textContent !== text) element.textContent = text;
    element.dateTime = wallClock(element.dataset.timeZone, at);
  }
}

/** How far a classmate is, as the class may say it. */
function distanceText(km, precision) {
  const distance = shownDistance(km, precision);
  if (distance.same) {
    return t({ exact: 'nearMe.samePlace', region: 'nearMe.sameRegion', country: 'nearMe.sameCountry' }[precision] || 'nearMe.sameTown');
  }
  const figure = formatDistance(distance, language());
  return distance.approximate ? t('nearMe.about', { distance: figure }) : figure;
}

function nearRow({ point, km }, precision) {
  const location = point.location;
  const parts = [
    el('span', { class: 'near-name', dir: 'auto', text: fullName(location) }),
    location.mapString ? el('span', { class: 'near-place', dir: 'auto', text: location.mapString }) : null,
    el('span', { class: 'near-facts' }, [
      el('span', { class: 'near-distance', text: distanceText(km, precision) }),
      localTimeElement(location, 'local-time near-time'),
    ]),
  ];
  const body = location.objectId
    ? el('button', { class: 'near-show', type: 'button', title: t('mine.showOnMap'), dataset: { showId: location.objectId } }, parts)
    : el('span', { class: 'near-show' }, parts);
  const row = el('li', { class: 'near-row', dataset: { objectId: location.objectId || '', km: String(Math.round(km * 1000) / 1000) } }, [body]);
  row.studentLocation = location;
  return row;
}

/** Draws "Near you" from the map's points (when the List tab shows, and after each load). */
export function drawNearMe() {
  const section = $('near-me');
  if (!section) return;
  drawing += 1;
  const list = $('near-me-list');
  const status = $('near-me-status');
  const more = $('near-me-more');
  const map = state.map;
  const points = map && map.clusters.size ? map.clusters.index.points : null;
  const mine = points ? points.find((point) => point && point.own) : null;
  section.dataset.state = !points ? 'loading' : !mine ? 'no-pin' : 'ready';
  if (!points || !mine) {
    list.replaceChildren();
    more.hidden = true;
    status.hidden = false;
    status.textContent = points ? t('nearMe.noPin') : t('nearMe.loading');
    return;
  }
  const precision = precisionOf();
  section.dataset.precision = precision || '';
  const found = nearest(points, mine, { limit: MOST + 1, skip: (point) => point.own });
  const focused = list.contains(document.activeElement) ? document.activeElement.closest('li')?.dataset.objectId : null;
  list.replaceChildren(...found.slice(0, shown).map((entry) => nearRow(entry, precision)));
  if (focused) list.querySelector(`li[data-object-id="${CSS.escape(focused)}"] .near-show`)?.focus();
  status.hidden = found.length > 0;
  status.textContent = found.length ? '' : t('nearMe.alone');
  more.hidden = found.length <= shown || shown >= MOST;
}

/** Sets up "Near you": `precision()` is the shown class's precision (null until known). */
export function setUpNearMe({ precision }) {
  precisionOf = precision;
  $('near-me-more').addEventListener('click', () => {
    const before = $('near-me-list').children.length;
    shown = MOST;
    drawNearMe();
    $('near-me-list').children[before]?.querySelector('.near-show')?.focus();
  });
  // Redrawn after each map load and, a moment after live changes, while the List tab shows.
  let pending = null;
  const soon = () => {
    if (pending) return;
    pending = setTimeout(() => {
      pending = null;
      if (state.tab === 'list') drawNearMe();
    }, 500);
  };
  document.addEventListener('onthemap:markers-ready', () => {
    shown = FIRST;
    if (state.tab === 'list') drawNearMe();
    // After the map is drawn: the rows look their zones up by objectId.
    setTimeout(refreshRows, 0);
  });
  document.addEventListener('onthemap:students-cleared', () => {
    shown = FIRST;
    drawNearMe();
  });
  document.addEventListener('onthemap:live-change', soon);
  onLanguageChange(() => drawNearMe());
  setInterval(refreshLocalTimes, 30000);
}

/** The list's rows drawn before the map's time zones were in get their times now. */
function refreshRows() {
  for (const list of [state.list, state.search && state.search.results]) {
    if (list && list.listElement.querySelector('li.student')) list.translate();
  }
}
