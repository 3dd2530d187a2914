// Who is near me: great-circle distances from the signed-in student's pin to each classmate,
// the nearest few picked in one pass (a class of 100,000 sorts no more than it shows), and
// each distance said no finer than the class shows where people are. Pure: no DOM, no
// network; the list tab draws what it returns (nearMeView.js).

const EARTH_RADIUS_KM = 6371.0088;
const RADIANS = Math.PI / 180;
export const KM_PER_MILE = 1.609344;

/** Great-circle (haversine) distance in kilometres between two points in degrees. */
export function distanceKm(latitude1, longitude1, latitude2, longitude2) {
  const dLatitude = (latitude2 - latitude1) * RADIANS;
  const dLongitude = (longitude2 - longitude1) * RADIANS;
  const a = Math.sin(dLatitude / 2) ** 2
    + Math.cos(latitude1 * RADIANS) * Math.cos(latitude2 * RADIANS) * Math.sin(dLongitude / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * The `limit` points nearest to `me` ({latitude, longitude}), nearest first, as
 * `[{ point, km }]`: one pass keeping the best `limit` (insertion into a short sorted
 * array), so 100,000 points cost 100,000 distances and no sort of them all. `skip(point)`
 * leaves a point out (the student's own pin). Ties keep the points' order.
 */
export function nearest(points, me, { limit = 20, skip = () => false } = {}) {
  const best = [];
  if (!me || !Number.isFinite(me.latitude) || !Number.isFinite(me.longitude) || limit <= 0) return best;
  for (const point of points) {
    if (!point || skip(point)) continue;
    const { latitude, longitude } = point;
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) continue;
    const km = distanceKm(me.latitude, me.longitude, latitude, longitude);
    if (best.length === limit && km >= best[limit - 1].km) continue;
    let at = best.length === limit ? limit - 1 : best.length;
    while (at > 0 && best[at - 1].km > km) {
      best[at] = best[at - 1];
      at -= 1;
    }
    best[at] = { point, km };
  }
  return best;
}

/** What each precision shows of a distance, in kilometres: the step it is rounded to, and
 *  the distance under which two people count as at the same place (a town-precision class
 *  puts everyone of a town on one point). An exact class says metres-free figures too: its
 *  points are the posted ones. */
const STEPS = {
  exact: { same: 0.05, step: (km) => (km < 10 ? 0.1 : km < 100 ? 1 : 10) },
  city: { same: 1, step: (km) => (km < 100 ? 5 : 10) },
  region: { same: 1, step: (km) => (km < 500 ? 50 : 100) },
  country: { same: 1, step: () => 100 },
};

/**
 * A distance as the class may show it: `{ same: true }` at the same place, else
 * `{ value, unit, approximate, fractionDigits }` rounded to the precision's step (never
 * below one step, so neighbouring towns do not read "0 km"), in `unit` ('kilometer' or
 * 'mile'; the app has languages, not regions, so it says kilometres). An unknown precision is treated as a town's, the coarser reading.
 */
export function shownDistance(km, precision, unit = 'kilometer') {
  const rule = STEPS[precision] || STEPS.city;
  if (km < rule.same) return { same: true };
  const inUnit = unit === 'mile' ? km / KM_PER_MILE : km;
  const step = rule.step(inUnit);
  const value = Math.max(step, Math.round(inUnit / step) * step);
  const fractionDigits = step < 1 ? 1 : 0;
  return { same: false, value: Number(value.toFixed(fractionDigits)), unit, approximate: precision !== 'exact', fractionDigits };
}

const numberFormats = new Map();

/** "12 km", "١٢ كم", "约 12 公里": a shown distance's figure and unit in the reader's language. */
export function formatDistance(shown, tag) {
  const key = `${tag}|${shown.unit}|${shown.fractionDigits}`;
  if (!numberFormats.has(key)) {
    numberFormats.set(key, new Intl.NumberFormat(tag, {
      style: 'unit', unit: shown.unit, unitDisplay: 'short',
      minimumFractionDigits: shown.fractionDigits, maximumFractionDigits: shown.fractionDigits,
    }));
  }
  return numberFormats.get(key).format(shown.value);
}
