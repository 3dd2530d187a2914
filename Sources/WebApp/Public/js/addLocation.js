// The pin button and its sheet: "Where are you studying today?" plus a link if any, geocoded
// through the server's /api/geocode, previewed on a map, then posted (or updated) as the
// student's StudentLocation. In a class that shows students by town, region or country the
// server places every post there; the preview asks it where first, says "You will appear at
// …" and puts its pin on that spot. In a class whose posts wait for a moderator's approval
// the sheet says so first, and once saved the confirmation says the post is waiting rather
// than showing it on the map (approval.js keeps saying so until a moderator decides). An
// archived class's map is read-only: the pin button says so instead of opening the sheet.
import { geocode, suggestPlaces, reverseGeocode, placement, createLocation, updateLocation, fetchOwnLocation } from './api.js';
import { PlaceSuggestions } from './placeSuggestions.js';
import { el, safeURL, setBusy, showAlert, confirmAction, describeFailure } from './ui.js';
import { addBaseLayers, mapOptions, translateLeaflet, pinIcon } from './map.js';
import { state, loadWorld } from './state.js';
import { refreshAll } from './students.js';
import { refuseWhileOffline } from './connection.js';
import { shownPrecision, shownApproval, shownArchived, checkArchived } from './classes.js';
import { isWaiting, canModerate, noteOwnPost } from './approval.js';
import { checkAccount } from './moderation.js';
import { $ } from './dom.js';
import { t, onLanguageChange } from './i18n.js';

const L = window.L;
/** How much around a placed pin the preview shows, by the class's precision (degrees). */
const PLACED_SPAN = {
  city: { latitudeDelta: 0.3, longitudeDelta: 0.4 },
  region: { latitudeDelta: 4, longitudeDelta: 5 },
  country: { latitudeDelta: 12, longitudeDelta: 16 },
};

/** Below this confidence the geocoder's best answer is a guess: the sheet asks "Did you mean
 *  …?" instead of previewing it. */
const CONFIDENT = 0.8;
/** How finely the device's position is asked about (degrees, about a kilometre): only the
 *  town found is ever posted, and only a rounded point leaves the device to find it. */
const LOCATE_ROUNDING = 100;

let sheet = null;
/** A geocoder result's kind (city, region, country) as the page's language names it. */
const KIND_NAMES = {
  city: () => t('add.placeKind.city'),
  region: () => t('add.placeKind.region'),
  country: () => t('add.placeKind.country'),
};

function kindName(kind) {
  return Object.hasOwn(KIND_NAMES, kind) ? KIND_NAMES[kind]() : String(kind);
}

/** The region and country of a geocoder result that its name does not already say. */
function extraParts(result, name) {
  return [result.region, result.country].filter((part) => part && !name.includes(part));
}

/** A found place as the preview names it ("São Paulo, Brazil"): its name, then the region and
 *  country it does not already say. This is what is posted as mapString, not what was typed;
 *  `typed` only where the result has no name. */
function placeName(result, typed = '') {
  const name = result.name || typed;
  return [name, ...extraParts(result, name)].filter(Boolean).join(', ');
}

/** What each suggestion says: the place's name, and its kind where two say the same. */
function suggestionLabels(results) {
  const names = results.map((result) => placeName(result));
  return names.map((name, index) => (results[index].kind && names.some((other, at) => at !== index && other === name)
    ? t('add.alternative.withKind', { name, kind: kindName(results[index].kind) })
    : name));
}

/** The sheet's question from its message: a new line where the message has one, and the
 *  words between asterisks in bold ("Where are you\n*studying* today?"). */
function renderQuestion(heading, message) {
  const nodes = [];
  message.split('\n').forEach((line, index) => {
    if (index > 0) nodes.push(el('br'));
    line.split('*').forEach((part, inner) => {
      if (!part) return;
      nodes.push(inner % 2 === 1 ? el('strong', { text: part }) : document.createTextNode(part));
    });
  });
  heading.replaceChildren(...nodes);
}

// The sheet's texts that depend on what it shows are said again in the new language.
onLanguageChange(() => { if (sheet) sheet.retranslate(); });

/** The pin button: asks before replacing a posted location, opens the sheet, then shows
 *  the saved location on the map. */
export function addLocation() {
  return openPinSheet({ askBeforeReplacing: true });
}

/** Edit, on the student's own row or popup (myPin.js): the sheet filled in with their post,
 *  without asking first. */
export function editLocation() {
  return openPinSheet({ askBeforeReplacing: false });
}

async function openPinSheet({ askBeforeReplacing }) {
  const button = $('add-location-button');
  if (button.disabled) return;
  if (await refuseWhileOffline(t('add.offline.posting'))) return;
  if (shownArchived()) {
    await showAlert(t('add.archived.title'), t('add.archived.message'));
    return;
  }
  button.disabled = true;
  let existing = null;
  try {
    existing = await fetchOwnLocation(state.account.key);
  } catch (error) {
    button.disabled = false;
    const { title, message } = describeFailure(error, t('add.failure.checking'));
    await showAlert(title, message);
    return;
  }
  button.disabled = false;
  if (existing && askBeforeReplacing) {
    const place = existing.mapString;
    const message = isWaiting()
      ? (place ? t('add.replace.waiting', { place }) : t('add.replace.waitingUnnamed'))
      : (place ? t('add.replace.message', { place }) : t('add.replace.messageUnnamed'));
    const overwrite = await confirmAction(t('add.replace.title'), message, t('add.replace.overwrite'), t('common.cancel'));
    if (!overwrite) return;
  }
  if (!sheet) sheet = new AddLocationSheet({ config: await state.configPromise, loadWorld });
  const saved = await sheet.open({ account: state.account, existing });
  if (!saved) return;
  noteOwnPost(saved.objectId);
  // Whether it waits for a moderator is the server's to say (the class's rule, the
  // student's role, an earlier approved post): asked while the map loads again.
  const [me] = await Promise.all([checkAccount().catch(() => null), refreshAll()]);
  if (me && me.has_waiting_post) {
    await showAlert(t('add.waiting.title'), t('add.waiting.message'));
    return;
  }
  if (state.tab === 'map' && state.map && saved.objectId) state.map.reveal(saved.objectId);
}

/** What the sheet says first about approval in the shown class (empty when nothing waits,
 *  or while the class's rule or the student's role is not known: the server decides). */
function approvalNote(existing) {
  if (canModerate() !== false) return '';
  const approval = shownApproval();
  if (existing && isWaiting()) return t('add.note.stillWaiting');
  if (approval === 'all') return existing ? t('add.note.allMove') : t('add.note.allPost');
  if (approval === 'new-members' && !existing) return t('add.note.firstPost');
  return '';
}

class AddLocationSheet {
  constructor({ config, loadWorld }) {
    this.config = config;
    this.loadWorld = loadWorld;
    this.dialog = $('add-location');
    this.form = $('add-form');
    this.place = $('add-place');
    this.link = $('add-link');
    this.findButton = $('add-find');
    this.busy = $('add-busy');
    this.preview = $('add-preview');
    this.finishButton = $('add-finish');
    this.replaceNote = $('add-replace-note');
    this.previewMap = null;
    this.previewMarker = null;
    this.placed = null;
    this.placements = new Map();
    this.choosing = false;
    this.abort = null;
    this.resolve = null;

    // Type-ahead: a picked suggestion is what Find previews, while the field still says it.
    this.picked = null;
    this.suggestions = new PlaceSuggestions({
      input: this.place,
      listbox: $('add-place-suggestions'),
      status: $('add-place-status'),
      ask: (query, signal) => suggestPlaces(query, { signal }),
      labels: suggestionLabels,
      nameOf: (result) => placeName(result),
      onPick: (result, text) => { this.picked = { text, result }; },
    });

    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.find();
    });
    $('add-cancel').addEventListener('click', () => this.close(null));
    this.dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      this.close(null);
    });
    $('add-open-link').addEventListener('click', () => this.openLink());
    $('add-back').addEventListener('click', () => this.backToForm());
    $('preview-doubt-none').addEventListener('click', () => this.backToForm());
    // "Use my location": only where the browser can say where it is.
    this.locateButton = $('add-locate');
    this.locateButton.hidden = !navigator.geolocation;
    this.locateButton.addEventListener('click', () => this.locate());
    this.finishButton.addEventListener('click', () => this.finish());
  }

  /** Opens the sheet; resolves to the saved location's objectId, or null when cancelled. */
  open({ account, existing }) {
    this.account = account;
    this.existing = existing || null;
    this.result = null;
    this.results = null;
    this.placed = null;
    this.place.value = existing ? existing.mapString || '' : '';
    this.picked = null;
    this.suggestions.reset();
    this.link.value = existing ? existing.mediaURL || '' : '';
    this.setWorking(false);
    this.retranslate();
    setBusy(this.finishButton, false);
    this.showStep('form');
    this.dialog.showModal();
    this.place.focus();
    return new Promise((resolve) => { this.resolve = resolve; });
  }

  /** The texts that depend on what the sheet shows, in the page's language: the first
   *  note, the title, the question and the finish button (again on a change of language). */
  retranslate() {
    const existing = this.existing;
    const place = existing && existing.mapString;
    const replacing = !existing ? '' : place ? t('add.note.replacing', { place }) : t('add.note.replacingUnnamed');
    const approval = approvalNote(existing);
    const note = replacing && approval ? t('add.note.both', { replacing, approval }) : replacing || approval;
    this.replaceNote.textContent = note;
    this.replaceNote.hidden = !note;
    $('add-title').textContent = existing ? t('add.title.update') : t('add.title.add');
    renderQuestion($('add-form').querySelector('.add-question'), t('add.question'));
    const finish = existing ? t('add.finish.replace') : t('add.finish');
    const label = this.finishButton.querySelector('.button-label');
    // While busy the button says what it does; its idle label comes back in the new language.
    if (this.finishButton.dataset.idleLabel) this.finishButton.dataset.idleLabel = finish;
    else label.textContent = finish;
    if (!this.preview.hidden && this.result) {
      this.sayPlacement(this.placed ? t('add.placement', { place: this.placed.name }) : '');
      this.describePreview();
    } else if (!this.preview.hidden && this.results) {
      this.describeDoubt();
    }
  }

  close(value) {
    this.suggestions.close();
    if (this.abort) this.abort.abort();
    this.abort = null;
    this.setWorking(false);
    if (this.dialog.open) this.dialog.close();
    const resolve = this.resolve;
    this.resolve = null;
    if (resolve) resolve(value);
  }

  showStep(step) {
    const preview = step === 'preview';
    this.form.hidden = preview;
    this.preview.hidden = !preview;
    this.dialog.classList.toggle('previewing', preview);
    if (preview) this.showPreview();
  }

  setWorking(working) {
    this.form.classList.toggle('working', working);
    this.busy.hidden = !working;
    this.place.disabled = working;
    this.link.disabled = working;
    this.locateButton.disabled = working;
    $('add-open-link').disabled = working;
    setBusy(this.findButton, working, t('add.finding'));
  }

  openLink() {
    const href = safeURL(this.link.value);
    if (!href) {
      showAlert(t('add.invalidLink.title'), this.link.value.trim()
        ? t('add.invalidLink.message', { link: this.link.value.trim() })
        : t('add.linkFirst.message'));
      return;
    }
    window.open(href, '_blank', 'noopener,noreferrer');
  }

  /** The link to post: '' when none is typed (it is optional: most school students have
   *  none); null, once the student was told, when what is typed is not a web address. */
  async checkedLink() {
    const linkText = this.link.value.trim();
    const href = linkText ? safeURL(linkText) : '';
    if (href === null) {
      await showAlert(t('add.invalidLink.title'), t('add.invalidLink.message', { link: linkText }));
      this.link.focus();
    }
    return href;
  }

  backToForm() {
    this.showStep('form');
    this.place.focus();
  }

  async find() {
    this.suggestions.close();
    const placeText = this.place.value.trim();
    if (!placeText) {
      await showAlert(t('add.placeNeeded.title'), t('add.placeNeeded.message'));
      this.place.focus();
      return;
    }
    const href = await this.checkedLink();
    if (href === null) return;

    this.setWorking(true);
    const abort = new AbortController();
    this.abort = abort;
    let results;
    // A suggestion picked and not changed since: that place, as picked.
    const picked = this.picked && this.picked.text.trim() === placeText ? this.picked.result : null;
    try {
      results = picked ? [picked] : await geocode(placeText, { signal: abort.signal });
    } catch (error) {
      if (abort.signal.aborted) return;
      this.setWorking(false);
      this.abort = null;
      if (error.kind === 'notFound') {
        await showAlert(t('add.geocodingUnavailable.title'), t('add.geocodingUnavailable.message'));
      } else {
        const { title, message } = describeFailure(error, t('add.failure.finding'));
        await showAlert(title, message);
      }
      return;
    }
    if (abort.signal.aborted) return;
    results = results.filter((r) => Number.isFinite(Number(r.latitude)) && Number.isFinite(Number(r.longitude)));
    if (results.length === 0) {
      this.abort = null;
      this.setWorking(false);
      await showAlert(t('add.notFound.title'), t('add.notFound.message', { place: placeText }));
      this.place.focus();
      return;
    }
    // A doubtful best answer ("asdf" read as Louisville) is not chosen for the student; a
    // picked suggestion is the student's own choice.
    const { confidence } = results[0];
    const doubtful = !picked && typeof confidence === 'number' && confidence < CONFIDENT;
    await this.previewFound(results, { typed: placeText, href, abort, doubtful, focus: this.place });
  }

  /** "Use my location": the device's position, rounded, is asked for the town it is in; that
   *  town is previewed (and placed as the class shows students) like a place found. The
   *  device's own point is never posted. */
  async locate() {
    this.suggestions.close();
    if (!navigator.geolocation) return;
    const href = await this.checkedLink();
    if (href === null) return;
    this.setWorking(true);
    const abort = new AbortController();
    this.abort = abort;
    const stop = async (title, message) => {
      this.abort = null;
      this.setWorking(false);
      await showAlert(title, message);
      this.locateButton.focus();
    };
    let position;
    try {
      position = await new Promise((resolve, reject) => {
        navigator.geolocation.getCurrentPosition(resolve, reject, { enableHighAccuracy: false, timeout: 20000, maximumAge: 300000 });
      });
    } catch (error) {
      if (abort.signal.aborted) return;
      if (error && error.code === 1) await stop(t('add.locate.denied.title'), t('add.locate.denied.message'));
      else await stop(t('add.locate.unavailable.title'), t('add.locate.unavailable.message'));
      return;
    }
    if (abort.signal.aborted) return;
    const round = (value) => Math.round(value * LOCATE_ROUNDING) / LOCATE_ROUNDING;
    let results;
    try {
      results = await reverseGeocode(round(position.coords.latitude), round(position.coords.longitude), { signal: abort.signal });
    } catch (error) {
      if (abort.signal.aborted) return;
      if (error.kind === 'notFound') {
        await stop(t('add.geocodingUnavailable.title'), t('add.geocodingUnavailable.message'));
      } else {
        const { title, message } = describeFailure(error, t('add.failure.locating'));
        await stop(title, message);
      }
      return;
    }
    if (abort.signal.aborted) return;
    results = results.filter((r) => Number.isFinite(Number(r.latitude)) && Number.isFinite(Number(r.longitude)));
    if (results.length === 0) {
      await stop(t('add.locate.noTown.title'), t('add.locate.noTown.message'));
      return;
    }
    await this.previewFound(results, { typed: '', href, abort, doubtful: false, focus: this.locateButton });
  }

  /** Shows the preview of `results`: the first placed where the class shows it, or, when
   *  `doubtful`, none of them chosen ("Did you mean …?"). */
  async previewFound(results, { typed, href, abort, doubtful, focus }) {
    // Where the class shows the place (its town, region or country), before any preview.
    this.placements = new Map();
    let placed = null;
    if (!doubtful) {
      try {
        placed = await this.placementOf(results[0], abort.signal);
      } catch (error) {
        if (abort.signal.aborted) return;
        this.abort = null;
        this.setWorking(false);
        await this.placementFailed(error);
        focus.focus();
        return;
      }
    }
    if (abort.signal.aborted) return;
    this.abort = null;
    this.setWorking(false);
    this.mapString = typed;
    this.mediaURL = href;
    this.results = results;
    this.result = doubtful ? null : results[0];
    this.placed = placed;
    this.showStep('preview');
  }

  /** Where the shown class puts `result`: `{ name, precision, latitude, longitude }`, or null
   *  where it shows the point as posted (an `exact` class, or a server that places nothing).
   *  Asked once per result, in every class: a teacher may have changed the level since the
   *  class was loaded. Rejects with the server's refusal (no town near it), or when there is
   *  no answer in a class not known to show exact points. */
  async placementOf(result, signal) {
    if (this.placements.has(result)) return this.placements.get(result);
    let answer;
    try {
      answer = await placement(Number(result.latitude), Number(result.longitude), { signal });
    } catch (error) {
      if (error.name === 'AbortError' || error.code === 'no_place_nearby') throw error;
      // A server from before precision per class has no such route; an exact class shows the
      // point as posted whatever this answer.
      const noRoute = error.status === 404 && error.code !== 'unknown_class';
      if (!noRoute && shownPrecision() !== 'exact') throw error;
      answer = null;
    }
    const latitude = Number(answer && answer.latitude);
    const longitude = Number(answer && answer.longitude);
    const placed = answer && answer.precision !== 'exact' && answer.name && Number.isFinite(latitude) && Number.isFinite(longitude)
      ? { name: String(answer.name), precision: answer.precision, latitude, longitude }
      : null;
    this.placements.set(result, placed);
    return placed;
  }

  /** Says why the place cannot be posted in this class (nothing is posted). */
  async placementFailed(error) {
    if (error.code === 'no_place_nearby') {
      await showAlert(t('add.noTown.title'), error.message);
    } else {
      const { title, message } = describeFailure(error, t('add.failure.placing'));
      await showAlert(title, message);
    }
  }

  /** Another of the places found (a "Not it? Try" chip): placed first, then previewed. */
  async choose(result) {
    if (this.choosing) return;
    // The chip keeps the focus (a disabled one would drop it); clicks wait for this one.
    this.choosing = true;
    setBusy(this.finishButton, true, t('add.finding'));
    let placed;
    try {
      placed = await this.placementOf(result);
    } catch (error) {
      if (this.dialog.open) await this.placementFailed(error);
      return;
    } finally {
      this.choosing = false;
      setBusy(this.finishButton, false);
      // Nothing to finish with until a place is chosen.
      this.finishButton.disabled = !this.result;
    }
    if (!this.dialog.open) return;
    this.result = result;
    this.placed = placed;
    this.showPreview();
  }

  showPreview() {
    const result = this.result;
    const doubt = $('preview-doubt');
    $('preview-map').hidden = !result;
    this.preview.querySelector('.preview-place').hidden = !result;
    doubt.hidden = Boolean(result);
    $('preview-link').textContent = this.mediaURL;
    $('preview-link').hidden = !this.mediaURL;
    if (!result) {
      // "Did you mean …?": the places found as choices, none chosen; Finish waits for one.
      this.finishButton.disabled = true;
      this.sayPlacement('');
      $('preview-alternatives').replaceChildren();
      $('preview-alternatives').hidden = true;
      this.describeDoubt();
      const first = $('preview-doubt-choices').querySelector('button');
      (first || $('preview-doubt-none')).focus();
      return;
    }
    this.finishButton.disabled = false;
    const name = result.name || this.mapString;
    $('preview-name').textContent = name;
    // Before the map is sized: the sentence takes its room in the card.
    const placed = this.placed;
    this.sayPlacement(placed ? t('add.placement', { place: placed.name }) : '');
    this.describePreview();

    // The pin goes where the class will show the student, not where the place was found.
    const lat = placed ? placed.latitude : Number(result.latitude);
    const lng = placed ? placed.longitude : Number(result.longitude);
    if (!this.previewMap) {
      this.previewMap = L.map('preview-map', { ...mapOptions(this.config), worldCopyJump: false });
      translateLeaflet(this.previewMap);
      this.loadWorld().then((world) => addBaseLayers(this.previewMap, this.config, world));
      this.previewMarker = L.marker([lat, lng], { icon: pinIcon('own'), keyboard: false }).addTo(this.previewMap);
    }
    this.previewMarker.setLatLng([lat, lng]);
    this.previewMap.invalidateSize();
    // A placed pin shows its surroundings: a town's, a region's or a country's.
    const span = placed ? PLACED_SPAN[placed.precision] || {} : result.span || {};
    const dLat = Math.max(Number(span.latitudeDelta) || 0, 0.02);
    const dLng = Math.max(Number(span.longitudeDelta) || 0, 0.02);
    const bounds = L.latLngBounds([lat - dLat / 2, lng - dLng / 2], [lat + dLat / 2, lng + dLng / 2]);
    this.previewMap.fitBounds(bounds, { maxZoom: this.config.tileURL ? 14 : 10, animate: false, padding: [16, 16] });
    const container = $('preview-map');
    container.dataset.zoom = String(this.previewMap.getZoom());
    container.dataset.center = `${lat},${lng}`;
    this.finishButton.focus();
  }

  /** The preview's words (the place's detail, the other places found, the map's name), in
   *  the page's language; the map and the focus stay as they are. */
  describePreview() {
    const result = this.result;
    const placed = this.placed;
    const name = result.name || this.mapString;
    const parts = extraParts(result, name);
    $('preview-detail').textContent = parts.length ? `, ${parts.join(', ')}` : result.kind ? ` · ${kindName(result.kind)}` : '';
    $('preview-map').setAttribute('aria-label', placed ? t('add.previewMap.placed', { place: placed.name }) : t('add.previewMap'));

    const alternatives = $('preview-alternatives');
    const others = this.results.filter((r) => r !== result);
    if (others.length > 0) {
      const extras = (r, text) => [r.region, r.country].filter((part) => part && !text.includes(part)).join(', ');
      const label = (r) => {
        const text = r.name || [r.region, r.country].filter(Boolean).join(', ');
        const twins = this.results.filter((o) => o !== r && o.name === r.name);
        if (twins.length === 0) return text;
        const extra = extras(r, text);
        if (extra && twins.every((o) => extras(o, text) !== extra)) return `${text}, ${extra}`;
        return r.kind ? t('add.alternative.withKind', { name: text, kind: kindName(r.kind) }) : text;
      };
      const buttons = others.map((other) => {
        const button = el('button', { class: 'chip', type: 'button', dir: 'auto', text: label(other) });
        button.addEventListener('click', () => this.choose(other));
        return button;
      });
      alternatives.replaceChildren(el('span', { class: 'alternatives-label', text: t('add.alternatives') }), ...buttons);
      alternatives.hidden = false;
    } else {
      alternatives.replaceChildren();
      alternatives.hidden = true;
    }
  }

  /** The choices of a doubtful answer, in the page's language (twins say their kind). */
  describeDoubt() {
    const choices = $('preview-doubt-choices');
    const hadFocus = choices.contains(document.activeElement) ? [...choices.children].indexOf(document.activeElement) : -1;
    const labels = suggestionLabels(this.results);
    choices.replaceChildren(...this.results.map((result, index) => {
      const button = el('button', { class: 'chip', type: 'button', dir: 'auto', text: labels[index] });
      button.addEventListener('click', () => this.choose(result));
      return button;
    }));
    if (hadFocus >= 0 && choices.children[hadFocus]) choices.children[hadFocus].focus();
  }

  /** The preview's live region says where the student will appear. The sentence is there
   *  at once (the map is laid out around it), and put in again a moment later, once the
   *  step shows: a live region hidden until now says nothing about what it already held. */
  sayPlacement(sentence) {
    const status = $('preview-placement');
    clearTimeout(this.sayTimer);
    status.textContent = sentence;
    if (sentence) this.sayTimer = setTimeout(() => status.replaceChildren(document.createTextNode(sentence)), 150);
  }

  async finish() {
    const result = this.result;
    if (!result) return;
    const account = this.account;
    const body = {
      uniqueKey: account.key,
      firstName: account.firstName,
      lastName: account.lastName,
      // The place found and previewed, as the preview names it (not what was typed).
      mapString: placeName(result, this.mapString),
      mediaURL: this.mediaURL,
      latitude: Number(result.latitude),
      longitude: Number(result.longitude),
    };
    if (await refuseWhileOffline(t('add.offline.posting'))) return;
    setBusy(this.finishButton, true, t('add.saving'));
    try {
      let objectId;
      if (this.existing && this.existing.objectId) {
        await updateLocation(this.existing.objectId, body);
        objectId = this.existing.objectId;
      } else {
        const created = await createLocation(body);
        objectId = created && created.objectId;
      }
      setBusy(this.finishButton, false);
      this.close({ objectId, location: body });
    } catch (error) {
      setBusy(this.finishButton, false);
      if (error.status === 403 && await checkArchived()) {
        // Archived since the map was loaded: nothing here can be saved.
        this.close(null);
        await showAlert(t('add.archived.title'), t('add.archived.notSaved'));
      } else if (error.status === 403) {
        await showAlert(t('add.notAllowed.title'), t('add.notAllowed.message', { reason: error.message }));
      } else if (error.kind === 'auth') {
        await showAlert(t('add.logInAgain.title'), t('add.logInAgain.message', { reason: error.message }));
      } else {
        const { title, message } = describeFailure(error, t('add.failure.saving'));
        await showAlert(title, message);
      }
    }
  }
}
