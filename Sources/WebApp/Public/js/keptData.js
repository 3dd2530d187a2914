// What the device kept, changed as the student changes it, and searched when the server
// cannot be reached. Pure functions of the kept answers' JSON (keptSession.js reads and
// writes the cache; api.js says what changed; search.js searches), so `node --test` checks
// them.

/** The kept `/api/pins` answer (`{ results: [pin] }`) after `change`: `{ pin }` (dropped or
 *  moved: put in, or in place of the pin with its id) or `{ deleted: id }`. */
export function pinsAfter(body, change) {
  if (!body || !Array.isArray(body.results)) return body;
  if (change.deleted !== undefined) {
    return { ...body, results: body.results.filter((pin) => !pin || pin.id !== change.deleted) };
  }
  const pin = change.pin;
  if (!pin || pin.id === undefined) return body;
  const at = body.results.findIndex((kept) => kept && kept.id === pin.id);
  const results = body.results.slice();
  if (at >= 0) results[at] = { ...results[at], ...pin };
  else results.push(pin);
  return { ...body, results };
}

/** Whether a kept StudentLocation answer at `url` (its query: `where`, `skip`) would hold
 *  `location` at its top: the first page of the class's list (newest first), or the first
 *  page of the student's own post (`where: { uniqueKey }`). Other queries only lose a post. */
function takesNewest(url, location) {
  const params = url.searchParams;
  if (Number(params.get('skip') || 0) > 0) return false;
  const where = params.get('where');
  if (!where) return true;
  try {
    const filter = JSON.parse(where);
    const names = filter && typeof filter === 'object' ? Object.keys(filter) : [];
    return names.length === 1 && names[0] === 'uniqueKey' && filter.uniqueKey === location.uniqueKey;
  } catch {
    return false;
  }
}

/** A kept StudentLocation list answer (`{ results, count? }`, fetched from `url`, a URL)
 *  after `change`: `{ location }` (posted or moved: the newest, so first) or `{ deleted: objectId }`. */
export function locationsAfter(body, url, change) {
  if (!body || !Array.isArray(body.results)) return body;
  const objectId = change.deleted !== undefined ? change.deleted : change.location && change.location.objectId;
  if (typeof objectId !== 'string') return body;
  const results = body.results.filter((kept) => !kept || kept.objectId !== objectId);
  const removed = body.results.length - results.length;
  let added = 0;
  if (change.location && takesNewest(url, change.location)) {
    results.unshift(change.location);
    // A page keeps its length (its last row moves to the next page).
    const limit = Number(url.searchParams.get('limit'));
    if (Number.isInteger(limit) && limit > 0 && results.length > limit) results.length = limit;
    if (!removed) added = 1;
  }
  const edited = { ...body, results };
  if (typeof body.count === 'number') edited.count = Math.max(0, body.count + added - (change.location ? 0 : removed));
  return edited;
}

const RECORD_COLUMNS = new Set(['firstName', 'lastName', 'mapString', 'mediaURL', 'objectId', 'uniqueKey']);

/** Whether `column` is one of a snapshot's columns: an array, a typed array or one of
 *  mapColumns.js's text columns (each read with `.at`). */
function isColumn(column) {
  return Boolean(column) && typeof column.at === 'function' && Number.isInteger(column.length);
}

/** The kept map snapshot (`{ columns, count, version }`, newest first; columns of any kind
 *  isColumn names) after `change`, as for locationsAfter; its columns come back as arrays. */
export function snapshotAfter(body, change) {
  const columns = body && body.columns;
  if (!columns || !isColumn(columns.objectId)) return body;
  const objectId = change.deleted !== undefined ? change.deleted : change.location && change.location.objectId;
  if (typeof objectId !== 'string') return body;
  const names = Object.keys(columns).filter((name) => isColumn(columns[name]));
  const keep = [];
  for (let row = 0; row < columns.objectId.length; row++) if (columns.objectId.at(row) !== objectId) keep.push(row);
  const edited = {};
  for (const name of names) edited[name] = keep.map((row) => columns[name].at(row));
  const location = change.location;
  if (location && Number.isFinite(Number(location.latitude)) && Number.isFinite(Number(location.longitude))) {
    // The columns a record names itself; any other (an index into a table of the answer's)
    // is left empty for this row.
    for (const name of names) {
      const value = name === 'latitude' || name === 'longitude' ? Number(location[name])
        : RECORD_COLUMNS.has(name) && typeof location[name] === 'string' ? location[name] : null;
      edited[name].unshift(value);
    }
  }
  // The teachers' rows are indexes: they follow the rows kept (one more for a row put first).
  let teachers = body.teachers;
  if (Array.isArray(teachers)) {
    const shift = edited.objectId.length > keep.length ? 1 : 0;
    const kept = new Map(keep.map((row, index) => [row, index + shift]));
    teachers = teachers.filter((row) => kept.has(row)).map((row) => kept.get(row));
  }
  return { ...body, columns: edited, count: edited.objectId.length, ...(teachers ? { teachers } : {}) };
}

/** Text as the search compares it: case, accents and width folded, spaces made one. */
export function folded(text) {
  return String(text || '').normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase('en').replace(/\s+/g, ' ').trim();
}

/** The kept locations whose name or place holds every word of `text`, in the order given
 *  (newest first). */
export function searchKept(locations, text) {
  const words = folded(text).split(' ').filter(Boolean);
  if (words.length === 0) return [];
  return locations.filter((location) => {
    if (!location) return false;
    const haystack = folded(`${location.firstName || ''} ${location.lastName || ''} ${location.mapString || ''}`);
    return words.every((word) => haystack.includes(word));
  });
}
