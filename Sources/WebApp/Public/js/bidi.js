// Text people typed (names, places, emails, reasons, a class's address) inside the app's own
// sentences, where the two may run in opposite directions: an Arabic sentence around a Latin
// name, or a Hebrew name in an English one. The one home for keeping each in its own direction:
// - in a string (a title, an aria-label, a message's parameter): `isolated(text)` sets it apart
//   with Unicode's first-strong isolate (FSI … PDI); `isolatedBeside(text, pageIsRTL)` does so
//   only where the page or the text runs right to left;
// - in the page, inside a sentence: `withParts` puts elements (a <bdi> for typed text) where a
//   message's placeholders are; alone in an element: `dir: 'auto'` on that element;
// - in HTML drawn by others (the map's attribution): `ownDirectionHTML(text)`.
// No DOM here: node --test Tests/JS runs it.

/** Unicode's FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE. */
export const FSI = '\u2068';
export const PDI = '\u2069';

/** Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, …, and Arabic's
 *  presentation forms). */
const RTL_TEXT = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

/** Whether `text` holds a right-to-left letter. */
export function hasRightToLeft(text) {
  return RTL_TEXT.test(String(text));
}

/** `text` set apart inside a sentence (FSI … PDI): its letters take their own direction and
 *  never reorder the sentence around it. */
export function isolated(text) {
  return `${FSI}${text}${PDI}`;
}

/** `text` set apart (as `isolated`) only where it and the sentence may run in opposite
 *  directions: a right-to-left page, or right-to-left text; otherwise as it is. */
export function isolatedBeside(text, pageIsRTL) {
  const value = String(text);
  return pageIsRTL || hasRightToLeft(value) ? isolated(value) : value;
}

/** A message with parts in it: `message(params)` (a t() call) with each of `parts`
 *  ({name: part}) where its placeholder is, as a list of texts and parts (for
 *  replaceChildren or an element's children); empty texts left out. */
export function withParts(message, params, parts) {
  const names = Object.keys(parts);
  const marks = Object.fromEntries(names.map((name, index) => [name, `\uE000${index}\uE001`]));
  return message({ ...params, ...marks }).split(/\uE000(\d+)\uE001/)
    .map((part, index) => (index % 2 ? parts[names[Number(part)]] : part))
    .filter((part) => part !== '');
}

/** Our own words as HTML, escaped and in their own direction (dir="auto"): for a place that
 *  runs left to right whatever the page's language, such as the map's attribution. */
export function ownDirectionHTML(text) {
  const escaped = String(text).replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]);
  return `<span dir="auto">${escaped}</span>`;
}
