// The map's snapshot in binary (`/api/locations/snapshot/map.bin`, docs/api/api.md): typed
// arrays viewed in place, where the JSON layout's million locations took the browser 1.5 s
// to parse. Pure data (snapshot.js fetches, keptSession.js rewrites the kept copy), so
// `node --test` checks it. index.html loads snapshot.js on its own; this is its one import.

const MAGIC = 'OTMC';
const LAYOUT_VERSION = 1;
/** The layout's media type (the server's Content-Type, and the kept copy's). */
export const MAP_COLUMNS_TYPE = 'application/vnd.onthemap.map-columns';
/** No time zone in the `timeZone` column. */
export const NO_ZONE = 65535;
const NUMBER_COLUMNS = ['latitude', 'longitude'];
const TEXT_COLUMNS = ['firstName', 'lastName', 'mapString', 'mediaURL', 'objectId', 'uniqueKey'];
/** Every column the layout has. */
export const MAP_COLUMNS = [...NUMBER_COLUMNS, 'timeZone', ...TEXT_COLUMNS];

/** Typed arrays of the layout are viewed in place only where the device is little-endian
 *  (every browser today); elsewhere they are copied through a DataView. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** One text column: `at(row)` is the row's text (cut from one decoded string, on demand). */
export class TextColumn {
  constructor(text, starts) {
    this.text = text;
    this.starts = starts;
    this.length = starts.length - 1;
  }

  at(row) {
    return row >= 0 && row < this.length ? this.text.slice(this.starts[row], this.starts[row + 1]) : undefined;
  }

  /** The rows whose text is `value` (not empty), in order. */
  rowsOf(value) {
    const rows = [];
    if (!value) return rows;
    for (let at = this.text.indexOf(value); at >= 0; at = this.text.indexOf(value, at + 1)) {
      // A match that begins and ends on a row's bounds is that row's text.
      const row = rowStartingAt(this.starts, at);
      if (row >= 0 && this.starts[row + 1] === at + value.length) rows.push(row);
    }
    return rows;
  }
}

/** The last row whose text starts at `offset` (empty rows before it start there too), or -1. */
function rowStartingAt(starts, offset) {
  let low = 0, high = starts.length - 1;
  // The first row that starts after `offset`.
  while (low < high) {
    const middle = (low + high) >> 1;
    if (starts[middle] <= offset) low = middle + 1;
    else high = middle;
  }
  const row = low - 1;
  return row >= 0 && starts[row] === offset ? row : -1;
}

function fail(why) {
  throw new Error(`snapshot: ${why}`);
}

function numbers(Type, buffer, offset, count) {
  if (!Number.isInteger(offset) || offset < 0 || offset % 8 !== 0 || offset + count * Type.BYTES_PER_ELEMENT > buffer.byteLength) {
    fail('a column outside the answer');
  }
  if (LITTLE_ENDIAN) return new Type(buffer, offset, count);
  const view = new DataView(buffer, offset, count * Type.BYTES_PER_ELEMENT);
  const values = new Type(count);
  for (let i = 0; i < count; i++) values[i] = Type === Float64Array ? view.getFloat64(i * 8, true) : view.getUint16(i * 2, true);
  return values;
}

/**
 * The layout's answer (an ArrayBuffer) as `{ columns, count, version, teachers, timeZones }`,
 * as the JSON layout's, except that `latitude` and `longitude` are Float64Arrays, `timeZone`
 * a Uint16Array (NO_ZONE: none) and each text column a TextColumn. Columns are read with
 * `.at(row)`, as a JSON layout's arrays are. Throws on anything else.
 */
export function readMapColumns(buffer) {
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < 12) fail('not a map layout');
  const bytes = new Uint8Array(buffer);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== MAGIC) fail('not a map layout');
  const view = new DataView(buffer);
  if (view.getUint32(4, true) !== LAYOUT_VERSION) fail('a layout this app cannot read');
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > buffer.byteLength) fail('a header outside the answer');
  const header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + headerLength)));
  const { count, version, teachers, timeZones } = header;
  const spec = header.columns || {};
  if (!Number.isInteger(count) || count < 0 || typeof version !== 'number' || !Array.isArray(teachers) || !Array.isArray(timeZones)) {
    fail('an unexpected header');
  }
  const columns = {};
  for (const name of NUMBER_COLUMNS) {
    if (!spec[name] || spec[name].type !== 'float64') fail(`no ${name}`);
    columns[name] = numbers(Float64Array, buffer, spec[name].offset, count);
  }
  if (!spec.timeZone || spec.timeZone.type !== 'uint16') fail('no timeZone');
  columns.timeZone = numbers(Uint16Array, buffer, spec.timeZone.offset, count);
  // Keeps a byte order mark at the start of a text (it is one of the texts' characters).
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  for (const name of TEXT_COLUMNS) {
    const entry = spec[name];
    if (!entry || entry.type !== 'text') fail(`no ${name}`);
    const { offset, byteLength } = entry;
    if (!Number.isInteger(offset) || !Number.isInteger(byteLength) || offset < 0 || byteLength < 0 ||
      offset + byteLength > buffer.byteLength) fail(`a column outside the answer (${name})`);
    const lengths = numbers(Uint16Array, buffer, entry.lengths, count);
    const starts = new Uint32Array(count + 1);
    let end = 0;
    for (let row = 0; row < count; row++) {
      end += lengths[row];
      starts[row + 1] = end;
    }
    const text = decoder.decode(bytes.subarray(offset, offset + byteLength));
    if (text.length !== end) fail(`${name}'s lengths do not add up`);
    columns[name] = new TextColumn(text, starts);
  }
  return { columns, count, version, teachers, timeZones };
}

/** `{ columns, count, version, teachers, timeZones }` with columns of any kind (arrays, typed
 *  arrays, TextColumns; a null time zone is none) in the binary layout, as an ArrayBuffer
 *  readMapColumns reads: what the device keeps after editing its copy. */
export function writeMapColumns(body) {
  const { columns, count } = body;
  const value = (column, row) => (typeof column.at === 'function' ? column.at(row) : column[row]);
  const encoder = new TextEncoder();
  const texts = TEXT_COLUMNS.map((name) => {
    // The layout's lengths are uint16 (the server keeps no longer text).
    const values = Array.from({ length: count }, (_, row) => {
      const text = value(columns[name], row);
      return typeof text === 'string' ? text.slice(0, 65535) : '';
    });
    return { name, lengths: Uint16Array.from(values, (text) => text.length), utf8: encoder.encode(values.join('')) };
  });
  const blocks = [];
  let end = 0;
  const place = (bytes) => {
    const offset = end;
    end = Math.ceil((end + bytes.byteLength) / 8) * 8;
    blocks.push({ offset, bytes });
    return offset;
  };
  const float64 = (name) => Float64Array.from({ length: count }, (_, row) => Number(value(columns[name], row)));
  const entries = {};
  for (const name of NUMBER_COLUMNS) entries[name] = { offset: place(littleEndian(float64(name))), type: 'float64' };
  const zones = Uint16Array.from({ length: count }, (_, row) => {
    const zone = columns.timeZone ? value(columns.timeZone, row) : null;
    return Number.isInteger(zone) && zone >= 0 && zone < NO_ZONE ? zone : NO_ZONE;
  });
  entries.timeZone = { offset: place(littleEndian(zones)), type: 'uint16' };
  for (const text of texts) {
    const lengths = place(littleEndian(text.lengths));
    entries[text.name] = { byteLength: text.utf8.byteLength, lengths, offset: place(text.utf8), type: 'text' };
  }
  // The offsets count from the first byte: settle the header's own length first.
  const headerFor = (base) => {
    const columnsAt = {};
    for (const name of Object.keys(entries).sort()) {
      const entry = { ...entries[name], offset: entries[name].offset + base };
      if (entry.lengths !== undefined) entry.lengths += base;
      columnsAt[name] = entry;
    }
    return encoder.encode(JSON.stringify({
      columns: columnsAt, count, teachers: body.teachers || [], timeZones: body.timeZones || [], version: body.version,
    }));
  };
  let base = Math.ceil((12 + headerFor(0).byteLength) / 8) * 8;
  let header = headerFor(base);
  while (Math.ceil((12 + header.byteLength) / 8) * 8 !== base) {
    base = Math.ceil((12 + header.byteLength) / 8) * 8;
    header = headerFor(base);
  }
  const out = new Uint8Array(base + end);
  out.set([...MAGIC].map((c) => c.charCodeAt(0)), 0);
  const view = new DataView(out.buffer);
  view.setUint32(4, LAYOUT_VERSION, true);
  view.setUint32(8, header.byteLength, true);
  out.set(header, 12);
  for (const block of blocks) out.set(block.bytes, base + block.offset);
  return out.buffer;
}

/** A typed array's bytes, little-endian. */
function littleEndian(values) {
  if (LITTLE_ENDIAN) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const out = new DataView(new ArrayBuffer(values.byteLength));
  values.forEach((number, i) => (values instanceof Float64Array ? out.setFloat64(i * 8, number, true) : out.setUint16(i * 2, number, true)));
  return new Uint8Array(out.buffer);
}
