// Which student locations the map draws as one cluster, at one zoom at a time and only when
// that zoom is shown. One pass puts every point in a grid cell the size of a cluster; a
// second pass lets the biggest cells take in neighbours that would overlap them on screen.
// 100,000 points cost a few milliseconds per zoom, where Leaflet.markercluster built a tree
// for every zoom up front (seconds at that size). Pure data: no Leaflet, no DOM.

/** Web Mercator, scaled to 0…1 (x grows east, y grows south), as Leaflet's pixels are. */
const MAX_LATITUDE = 85.0511287798;
export function mercatorX(longitude) {
  return longitude / 360 + 0.5;
}
export function mercatorY(latitude) {
  const clamped = Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, latitude));
  const sin = Math.sin((clamped * Math.PI) / 180);
  return 0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI;
}
export function longitudeOf(x) {
  return (x - 0.5) * 360;
}
export function latitudeOf(y) {
  return (360 / Math.PI) * Math.atan(Math.exp((1 - 2 * y) * Math.PI)) - 90;
}

/** How many zoom levels' clusters are kept (a level is a few arrays the size of the data). */
const KEPT_LEVELS = 8;

/** One zoom's clusters, as parallel arrays: cluster c is at (x[c], y[c]), holds count[c]
 *  points spanning minX…maxX × minY…maxY, and `member[c]` is one point of it (the point
 *  itself when count is 1). `clusterOf[i]` is the cluster of point i. */
class Level {
  constructor(size, points) {
    this.size = size;
    this.x = new Float64Array(size);
    this.y = new Float64Array(size);
    this.count = new Int32Array(size);
    this.member = new Int32Array(size);
    this.minX = new Float64Array(size).fill(Infinity);
    this.minY = new Float64Array(size).fill(Infinity);
    this.maxX = new Float64Array(size).fill(-Infinity);
    this.maxY = new Float64Array(size).fill(-Infinity);
    this.clusterOf = new Int32Array(points);
  }
}

/** How far apart (pixels, at the zoom shown) a cluster's students may be and still be one
 *  place on screen: their pins would cover each other, so zooming in one step does not part
 *  them and the map names them in one list instead. */
export const TOGETHER_PIXELS = 12;

/** The widest side (pixels at `zoom`) of the box around cluster `c`'s points. */
export function spanInPixels(level, c, zoom) {
  const scale = 256 * 2 ** zoom;
  return Math.max(level.maxX[c] - level.minX[c], level.maxY[c] - level.minY[c]) * scale;
}

/** Whether cluster `c`'s students are too close to tell apart at `zoom`. */
export function tooCloseToTell(level, c, zoom, pixels = TOGETHER_PIXELS) {
  return spanInPixels(level, c, zoom) <= pixels;
}

export class ClusterIndex {
  /**
   * @param {number} radius  pixels within which points draw as one cluster
   * @param {(zoom: number) => number} [radiusAt]  the radius at a zoom, where it is not `radius`
   *   (the map's last zoom clusters only pins that would cover each other)
   */
  constructor(radius, radiusAt = null) {
    this.radius = radius;
    this.radiusAt = radiusAt;
    /** Points: `{ x, y, ... }` objects as given to add(); removed ones leave a null hole. */
    this.points = [];
    this.holes = 0;
    this.levels = new Map();
    /** Bumped on every change, so drawn clusters of an older version are redrawn. */
    this.version = 0;
  }

  get size() {
    return this.points.length - this.holes;
  }

  /** Adds points (objects with x and y in 0…1). */
  add(points) {
    for (const point of points) this.points.push(point);
    this.changed();
  }

  remove(point) {
    const index = this.points.indexOf(point);
    if (index < 0) return;
    this.points[index] = null;
    this.holes += 1;
    // Holes cost a pass each time a level is built; close them up once they add up.
    if (this.holes > 64 && this.holes > this.points.length / 8) {
      this.points = this.points.filter((p) => p !== null);
      this.holes = 0;
    }
    this.changed();
  }

  clear() {
    this.points = [];
    this.holes = 0;
    this.changed();
  }

  changed() {
    this.levels.clear();
    this.version += 1;
  }

  /** The clusters at `zoom` (256 × 2^zoom pixels around the world), built on first use. */
  level(zoom) {
    let level = this.levels.get(zoom);
    if (level) {
      // Most recently used last, so the oldest is dropped first.
      this.levels.delete(zoom);
      this.levels.set(zoom, level);
      return level;
    }
    level = this.build(zoom);
    this.levels.set(zoom, level);
    if (this.levels.size > KEPT_LEVELS) this.levels.delete(this.levels.keys().next().value);
    return level;
  }

  /** The points of cluster `c` of `level`. */
  membersOf(level, c) {
    const members = [];
    for (let i = 0; i < this.points.length; i++) if (level.clusterOf[i] === c) members.push(this.points[i]);
    return members;
  }

  build(zoom) {
    const points = this.points;
    const n = points.length;
    const radius = this.radiusAt ? this.radiusAt(zoom) : this.radius;
    const cell = radius / (256 * 2 ** zoom);
    const columns = Math.ceil(1 / cell) + 1;
    // Pass 1: every point into its grid cell.
    const cellIndex = new Map();
    const cellOf = new Int32Array(n).fill(-1);
    let sumX = new Float64Array(1024), sumY = new Float64Array(1024), sizes = new Int32Array(1024);
    let keys = new Int32Array(1024);
    let cells = 0;
    for (let i = 0; i < n; i++) {
      const point = points[i];
      if (point === null) continue;
      const key = Math.floor(point.y / cell) * columns + Math.floor(point.x / cell);
      let c = cellIndex.get(key);
      if (c === undefined) {
        c = cells++;
        cellIndex.set(key, c);
        if (c === sizes.length) {
          [sumX, sumY, sizes, keys] = [grow(sumX), grow(sumY), grow(sizes), grow(keys)];
        }
        keys[c] = key;
      }
      cellOf[i] = c;
      sumX[c] += point.x;
      sumY[c] += point.y;
      sizes[c] += 1;
    }
    // Pass 2: the fullest cells first, each takes in the neighbouring cells whose centre lies
    // within one radius of its own (they would overlap it on screen).
    const order = Array.from({ length: cells }, (_, c) => c).sort((a, b) => sizes[b] - sizes[a]);
    const owner = new Int32Array(cells).fill(-1);
    let clusters = 0;
    const clusterOfCell = new Int32Array(cells);
    const reach2 = cell * cell;
    for (const c of order) {
      if (owner[c] !== -1) continue;
      owner[c] = c;
      clusterOfCell[c] = clusters++;
      const cx = sumX[c] / sizes[c], cy = sumY[c] / sizes[c];
      const row = Math.floor(keys[c] / columns), column = keys[c] - row * columns;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          if (dx === 0 && dy === 0) continue;
          const neighbour = cellIndex.get((row + dy) * columns + column + dx);
          if (neighbour === undefined || owner[neighbour] !== -1) continue;
          const nx = sumX[neighbour] / sizes[neighbour] - cx, ny = sumY[neighbour] / sizes[neighbour] - cy;
          if (nx * nx + ny * ny > reach2) continue;
          owner[neighbour] = c;
          clusterOfCell[neighbour] = clusterOfCell[c];
        }
      }
    }
    // Pass 3: every point into its cluster's totals and bounds.
    const level = new Level(clusters, n);
    level.clusterOf.fill(-1);
    for (let i = 0; i < n; i++) {
      const point = points[i];
      if (point === null) continue;
      const k = clusterOfCell[cellOf[i]];
      level.clusterOf[i] = k;
      if (level.count[k] === 0) level.member[k] = i;
      level.count[k] += 1;
      level.x[k] += point.x;
      level.y[k] += point.y;
      if (point.x < level.minX[k]) level.minX[k] = point.x;
      if (point.x > level.maxX[k]) level.maxX[k] = point.x;
      if (point.y < level.minY[k]) level.minY[k] = point.y;
      if (point.y > level.maxY[k]) level.maxY[k] = point.y;
    }
    for (let k = 0; k < clusters; k++) {
      level.x[k] /= level.count[k];
      level.y[k] /= level.count[k];
    }
    return level;
  }
}

function grow(array) {
  const bigger = new array.constructor(array.length * 2);
  bigger.set(array);
  return bigger;
}
