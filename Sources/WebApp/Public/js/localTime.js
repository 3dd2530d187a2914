// What time it is where a student is placed: the place's IANA time zone (the snapshot's, from
// the server's gazetteer) formatted in the reader's language. Pure but for `now()`, which
// browser tests fix through a hook the app reads only when a test sets it.

/** The clock: `window.onthemapTestClock` (milliseconds since 1970, set only by browser
 *  tests) when it is a number, else the real one. */
export function now() {
  const fixed = globalThis.onthemapTestClock;
  return typeof fixed === 'number' && Number.isFinite(fixed) ? fixed : Date.now();
}

const formats = new Map();

/** A formatter of hours and minutes in `timeZone` for language `tag`; null when the zone is
 *  not one this browser knows. */
function formatter(tag, timeZone) {
  const key = `${tag}|${timeZone}`;
  if (!formats.has(key)) {
    let format = null;
    try {
      format = new Intl.DateTimeFormat(tag, { hour: 'numeric', minute: '2-digit', timeZone });
    } catch {
      format = null;
    }
    formats.set(key, format);
  }
  return formats.get(key);
}

/** "14:05", "2:05 PM", "١٤:٠٥": the time at `epochMs` in `timeZone`, in language `tag`'s
 *  way of writing it; null without a zone or with one this browser does not know. */
export function localTime(timeZone, tag, epochMs = now()) {
  if (typeof timeZone !== 'string' || !timeZone) return null;
  const format = formatter(tag, timeZone);
  return format ? format.format(new Date(epochMs)) : null;
}

/** The wall-clock time at `epochMs` in `timeZone` as an ISO-like "YYYY-MM-DDTHH:MM" (for a
 *  `<time datetime>` and for tests); null for an unknown zone. */
export function wallClock(timeZone, epochMs = now()) {
  if (typeof timeZone !== 'string' || !timeZone) return null;
  let parts;
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
    }).formatToParts(new Date(epochMs));
  } catch {
    return null;
  }
  const part = (type) => parts.find((item) => item.type === type).value;
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}`;
}
