// What the map writes on its pins and where its place names may go: a student's initials
// (the first written character of each name, in any script) and the boxes that keep a place
// name from being hidden under a pin or a cluster's bubble. Pure: no Leaflet, no DOM.

/** Splits text into what a reader sees as characters (an emoji with its modifiers, a letter
 *  with its accents, a Devanagari syllable's parts), with Intl.Segmenter where the browser has
 *  it and code points where it does not. */
let segmenter;
function graphemes(text) {
  if (segmenter === undefined) {
    segmenter = typeof Intl === 'object' && typeof Intl.Segmenter === 'function'
      ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
      : null;
  }
  if (!segmenter) return Array.from(text);
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

const WRITTEN = /[\p{L}\p{N}]/u;
/** Invisible format characters (joiners, marks of direction) a pasted name may carry. */
const INVISIBLE = /\p{Cf}/gu;

/** The first grapheme of a name that holds a letter or a digit, capitalised where its script
 *  has capitals ("élodie" → "É", "سارة" → "س", "李" → "李"), or "" when there is none. */
export function initial(name) {
  if (typeof name !== 'string') return '';
  for (const grapheme of graphemes(name.replace(INVISIBLE, '').trim())) {
    if (!WRITTEN.test(grapheme)) continue;
    // A capital that is two letters ("ß" → "SS") would read as two initials: kept as written.
    const capital = grapheme.toLocaleUpperCase();
    return capital.length > grapheme.length ? grapheme : capital;
  }
  return '';
}

/** Scripts whose letters join their neighbours (two initials would read as one word). */
const JOINING = /[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Nko}\p{Script=Mongolian}\p{Script=Mandaic}\p{Script=Adlam}]/u;

/** A student's initials for their pin: the first name's, then the last name's ("Ada
 *  Lovelace" → "AL"). Two initials of a joining script (Arabic) are kept from joining into
 *  one word by a zero-width non-joiner, and the pin sets the text's direction from its first
 *  letter, so "سارة أحمد" reads س then أ from the right. A name of one word gives one. */
export function initials(firstName, lastName) {
  const first = initial(firstName);
  const last = initial(lastName);
  if (!first || !last) return first || last;
  return JOINING.test(first) || JOINING.test(last) ? `${first}\u200C${last}` : first + last;
}

/** Whether two boxes ({ left, top, right, bottom }, pixels) overlap by more than a hair. */
export function overlaps(a, b, slack = 0) {
  return a.left < b.right - slack && a.right > b.left + slack && a.top < b.bottom - slack && a.bottom > b.top + slack;
}

/** Whether `box` overlaps any of `boxes`. */
export function overlapsAny(box, boxes, slack = 0) {
  for (const other of boxes) if (overlaps(box, other, slack)) return true;
  return false;
}

/** The name a place's label shows to a reader of `language` (an app tag: "de", "zh-Hans"):
 *  the city's name in that language when places.json has one ("München" is not among them,
 *  "Wien", "开罗" are: CLDR names capitals and the cities time zones are named after), else the
 *  gazetteer's. `index` is the place's position in `places.places`. */
export function placeName(places, index, language) {
  const own = places.names && places.names[language];
  return (own && own[index]) || places.places[index][0];
}

/** Ideographs, kana, hangul and full-width forms take about twice a Latin letter's room. */
const WIDE = /[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6]/u;

/** About how wide (pixels) a place name is drawn: what keeps two names from overlapping
 *  before either is on the map (a region's letters are spaced wider than a city's). */
export function labelWidth(name, kind) {
  let units = 0;
  for (const character of name) units += WIDE.test(character) ? 2 : 1;
  return units * (kind === 'region' ? 7.5 : 7) + 12;
}
