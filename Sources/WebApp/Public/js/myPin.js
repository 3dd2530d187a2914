// The signed-in student's own pin: "You" on their list rows and popup, with Edit (the pin
// button's sheet, filled in) and "Remove me from the map" (confirmed; their post in that class
// is deleted, and classmates' maps drop it on the live stream); "Show on map" from any list or
// search row; and the account dialog's "Where I am on the map": their post in each of their
// classes, each removable there too.
import * as api from './api.js';
import { state } from './state.js';
import { go } from './router.js';
import { classAddress, currentClass, isDefaultClass } from './currentClass.js';
import { el, showAlert, confirmAction, describeFailure } from './ui.js';
import { t } from './i18n.js';
import { isolated } from './bidi.js';

/** The mark on the student's own row and popup. */
export function youBadge() {
  return el('span', { class: 'you-badge', text: t('mine.you') });
}

/** Edit and "Remove me from the map", on the student's own row and popup. */
export function ownActions(location) {
  return el('span', { class: 'own-actions' }, [
    el('button', { class: 'text-button edit-own', type: 'button', dataset: { editOwn: location.objectId }, text: t('mine.edit') }),
    el('button', { class: 'text-button remove-own', type: 'button', dataset: { removeOwn: location.objectId }, text: t('mine.removeMe') }),
  ]);
}

/** The location a row's or popup's button is about. */
function locationOf(button) {
  const row = button.closest('li');
  if (row && row.studentLocation) return row.studentLocation;
  return state.map && state.map.popupLocation ? state.map.popupLocation : null;
}

/** `edit()` opens the pin button's sheet on the student's post; `removed()` runs after one of
 *  their posts was removed (main.js asks the server about a waiting post again). */
export function setUpMyPin({ edit, removed = () => {} }) {
  document.addEventListener('click', (event) => {
    const show = event.target.closest('[data-show-id]');
    const editButton = event.target.closest('[data-edit-own]');
    const remove = event.target.closest('[data-remove-own]');
    if (show) {
      event.preventDefault();
      showStudent(show.dataset.showId, locationOf(show));
    } else if (editButton) {
      event.preventDefault();
      if (state.map) state.map.map.closePopup();
      edit();
    } else if (remove) {
      event.preventDefault();
      const where = locationOf(remove);
      removeOwn(remove.dataset.removeOwn, { place: where && where.mapString }).then((done) => { if (done) removed(); });
    }
  });
}

/** The map tab, on a student's pin with its popup open (the focus in it). */
export async function showStudent(objectId, where = null) {
  const target = `#/${classAddress('map')}`;
  if (window.location.hash !== target) {
    await new Promise((resolve) => {
      window.addEventListener('hashchange', () => setTimeout(resolve, 0), { once: true });
      go(classAddress('map'));
    });
  }
  const map = state.map;
  if (!map) return;
  map.invalidateSize();
  if (map.reveal(objectId, { focus: true })) return;
  // Not on the map (a post waiting for approval is only in its author's list): its spot.
  const latitude = Number(where && where.latitude), longitude = Number(where && where.longitude);
  if (Number.isFinite(latitude) && Number.isFinite(longitude)) map.map.setView([latitude, longitude], 8);
}

/** Asks, then deletes the student's own post `objectId` in class `slug` (undefined: the shown
 *  one); the shown map and lists drop it at once. Resolves to whether it was removed. */
export async function removeOwn(objectId, { place = '', slug = undefined, className = '' } = {}) {
  // Typed names keep their own direction inside the sentence.
  const params = { place: isolated(place || ''), class: isolated(className) };
  const message = className
    ? (place ? t('mine.remove.confirmInClass', params) : t('mine.remove.confirmInClassUnnamed', params))
    : (place ? t('mine.remove.confirm', params) : t('mine.remove.confirmUnnamed'));
  const sure = await confirmAction(t('mine.remove.title'), message, t('mine.remove.button'), t('common.cancel'));
  if (!sure) return false;
  try {
    await api.deleteLocation(objectId, slug);
  } catch (error) {
    if (error.status === 401) return false; // the session ended: session.js shows the login
    const { title, message: text } = describeFailure(error, t('mine.remove.failure'));
    await showAlert(title, text);
    return false;
  }
  const shown = slug === undefined || (isDefaultClass(slug) ? isDefaultClass(currentClass()) : currentClass() === slug);
  if (shown) {
    if (state.map) state.map.removeLocation(objectId);
    if (state.list) state.list.removeLive(objectId);
    if (state.search) state.search.results.removeLive(objectId);
  }
  return true;
}

/** The account dialog's "Where I am on the map": one line per class of the student's, with
 *  their post's place and Remove, or that they are not on that map. */
export class MyPlaces {
  constructor(list, status) {
    this.list = list;
    this.status = status;
    this.generation = 0;
  }

  clear() {
    this.generation += 1;
    this.list.replaceChildren();
    this.status.textContent = '';
  }

  async load() {
    const generation = ++this.generation;
    const key = state.account && state.account.key;
    if (!key) return;
    this.list.replaceChildren();
    this.status.textContent = t('mine.places.loading');
    let lines;
    try {
      const { classes } = await api.fetchClasses();
      lines = await Promise.all(classes.map(async (mapClass) => ({
        mapClass,
        post: await api.fetchOwnLocationIn(mapClass.slug, key).catch(() => undefined),
      })));
    } catch {
      if (generation === this.generation) this.status.textContent = t('mine.places.error');
      return;
    }
    if (generation !== this.generation) return;
    this.status.textContent = lines.some((line) => line.post) ? '' : t('mine.places.none');
    this.list.replaceChildren(...lines.map((line) => this.line(line)));
  }

  line({ mapClass, post }) {
    const name = el('span', { class: 'my-place-class', dir: 'auto', text: mapClass.name || mapClass.slug });
    const where = post === undefined
      ? el('span', { class: 'my-place-where muted', text: t('mine.places.unknown') })
      : post
        ? el('span', { class: 'my-place-where', dir: 'auto', text: post.mapString || t('mine.places.onMap') })
        : el('span', { class: 'my-place-where muted', text: t('mine.places.notOnMap') });
    const remove = post
      ? el('button', { class: 'text-button remove-place', type: 'button', text: t('mine.places.remove'),
        'aria-label': t('mine.places.removeLabel', { class: mapClass.name || mapClass.slug }) })
      : null;
    const item = el('li', { class: 'my-place', dataset: { slug: mapClass.slug } }, [el('span', { class: 'my-place-text' }, [name, where]), remove]);
    if (remove) {
      remove.addEventListener('click', async () => {
        const done = await removeOwn(post.objectId, { place: post.mapString, slug: mapClass.slug, className: mapClass.name || mapClass.slug });
        if (done) item.replaceWith(this.line({ mapClass, post: null }));
      });
    }
    return item;
  }
}
