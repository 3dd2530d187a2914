// A QR code (ISO/IEC 18004) for a short text, such as a class's invite link, so a classroom
// projector can show it: byte mode (the text's UTF-8), error correction level M (about 15%
// of the symbol may be lost), the smallest version (1 to 40) that holds it, and the mask the
// standard's penalty rules choose. Pure data: no DOM, except qrSVG's markup (a string).

/** Level M in the format information (L 01, M 00, Q 11, H 10). */
const LEVEL_M_BITS = 0b00;

/** Level M, versions 1 to 40: error correction codewords in each block, and the blocks. */
const EC_PER_BLOCK = [
  10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
  26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
];
const BLOCKS = [
  1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
  17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
];

// ---- GF(256), the field of the Reed-Solomon codes (x^8 + x^4 + x^3 + x^2 + 1) -----------

const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let value = 1;
  for (let power = 0; power < 255; power++) {
    EXP[power] = value;
    LOG[value] = power;
    value <<= 1;
    if (value & 0x100) value ^= 0x11d;
  }
  for (let power = 255; power < 512; power++) EXP[power] = EXP[power - 255];
}

function multiply(a, b) {
  return a === 0 || b === 0 ? 0 : EXP[LOG[a] + LOG[b]];
}

/** The generator polynomial of `degree` error correction codewords, (x - α^0)…(x - α^(n-1)),
 *  as its coefficients from the highest power down, the leading 1 included. */
export function generatorPolynomial(degree) {
  let poly = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j++) {
      next[j] ^= poly[j];
      next[j + 1] ^= multiply(poly[j], EXP[i]);
    }
    poly = next;
  }
  return poly;
}

/** The `degree` error correction codewords of `data`: the remainder of data(x)·x^n / g(x). */
export function reedSolomon(data, degree) {
  const generator = generatorPolynomial(degree);
  const remainder = new Array(degree).fill(0);
  for (const byte of data) {
    const factor = byte ^ remainder[0];
    remainder.shift();
    remainder.push(0);
    for (let i = 0; i < degree; i++) remainder[i] ^= multiply(generator[i + 1], factor);
  }
  return remainder;
}

// ---- sizes --------------------------------------------------------------------------------

export function sizeOf(version) {
  return version * 4 + 17;
}

/** Where the alignment patterns' centres are, on each axis (none in version 1). */
export function alignmentPositions(version) {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const last = sizeOf(version) - 7;
  const step = version === 32 ? 26 : Math.ceil((last - 6) / (count - 1) / 2) * 2;
  const positions = [6];
  for (let i = count - 2; i >= 0; i--) positions.push(last - i * step);
  return positions;
}

/** Modules left for data and error correction once the function patterns are placed. */
function dataModules(version) {
  const size = sizeOf(version);
  let modules = size * size - 3 * 64 - 2 * (size - 16) - 31; // finders and separators, timing, format and the dark module
  const align = alignmentPositions(version).length;
  if (align > 0) modules -= (align * align - 3) * 25 - 2 * (align - 2) * 5;
  if (version >= 7) modules -= 36;
  return modules;
}

/** Codewords in a version (data and error correction). */
export function totalCodewords(version) {
  return Math.floor(dataModules(version) / 8);
}

/** Data codewords a version holds at level M. */
export function dataCodewords(version) {
  return totalCodewords(version) - EC_PER_BLOCK[version - 1] * BLOCKS[version - 1];
}

/** Bytes a version holds in byte mode at level M. */
export function byteCapacity(version) {
  const countBits = version < 10 ? 8 : 16;
  return Math.floor((dataCodewords(version) * 8 - 4 - countBits) / 8);
}

// ---- format and version information -------------------------------------------------------

/** The 15 format bits for level M and `mask`: BCH(15,5), then XOR 101010000010010. */
export function formatBits(mask) {
  const data = (LEVEL_M_BITS << 3) | mask;
  let remainder = data << 10;
  for (let bit = 14; bit >= 10; bit--) if (remainder & (1 << bit)) remainder ^= 0x537 << (bit - 10);
  return ((data << 10) | remainder) ^ 0x5412;
}

/** The 18 version bits (versions 7 and up): BCH(18,6). */
export function versionBits(version) {
  let remainder = version << 12;
  for (let bit = 17; bit >= 12; bit--) if (remainder & (1 << bit)) remainder ^= 0x1f25 << (bit - 12);
  return (version << 12) | remainder;
}

// ---- the data ---------------------------------------------------------------------------

/** The text's data codewords in `version`: mode 0100, the count, the bytes, a terminator
 *  and the pad bytes 11101100 00010001. */
function dataCodewordsFor(bytes, version) {
  const bits = [];
  const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  put(0b0100, 4);
  put(bytes.length, version < 10 ? 8 : 16);
  for (const byte of bytes) put(byte, 8);
  const capacity = dataCodewords(version) * 8;
  put(0, Math.min(4, capacity - bits.length));
  while (bits.length % 8) bits.push(0);
  const codewords = [];
  for (let i = 0; i < bits.length; i += 8) codewords.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0; codewords.length < dataCodewords(version); pad++) codewords.push(pad % 2 ? 0x11 : 0xec);
  return codewords;
}

/** The data split into blocks (the short ones first), each with its error correction, then
 *  interleaved: the blocks' first data codewords, their second, …, then the same for the
 *  error correction codewords. */
export function interleavedCodewords(data, version) {
  const blocks = BLOCKS[version - 1];
  const ecLength = EC_PER_BLOCK[version - 1];
  const shortLength = Math.floor(data.length / blocks);
  const longBlocks = data.length % blocks;
  const split = [];
  let start = 0;
  for (let i = 0; i < blocks; i++) {
    const length = shortLength + (i >= blocks - longBlocks ? 1 : 0);
    const part = data.slice(start, start + length);
    start += length;
    split.push({ data: part, ec: reedSolomon(part, ecLength) });
  }
  const out = [];
  for (let i = 0; i <= shortLength; i++) for (const block of split) if (i < block.data.length) out.push(block.data[i]);
  for (let i = 0; i < ecLength; i++) for (const block of split) out.push(block.ec[i]);
  return out;
}

// ---- the matrix -------------------------------------------------------------------------

const MASKS = [
  (x, y) => (x + y) % 2 === 0,
  (x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(y / 2) + Math.floor(x / 3)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

class Matrix {
  constructor(version) {
    this.version = version;
    this.size = sizeOf(version);
    this.dark = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    this.reserved = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
  }

  set(x, y, dark) {
    this.dark[y][x] = dark;
    this.reserved[y][x] = true;
  }

  placeFunctionPatterns() {
    const { size } = this;
    for (let i = 0; i < size; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const x = cx + dx;
          const y = cy + dy;
          if (x < 0 || y < 0 || x >= size || y >= size) continue;
          const ring = Math.max(Math.abs(dx), Math.abs(dy));
          this.set(x, y, ring !== 2 && ring !== 4);
        }
      }
    }
    const centres = alignmentPositions(this.version);
    const last = centres.length - 1;
    for (let i = 0; i <= last; i++) {
      for (let j = 0; j <= last; j++) {
        if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue;
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) {
            this.set(centres[i] + dx, centres[j] + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
          }
        }
      }
    }
    this.placeFormat(0); // reserves the areas; drawn again with the chosen mask
    if (this.version >= 7) {
      const bits = versionBits(this.version);
      for (let i = 0; i < 18; i++) {
        const dark = ((bits >>> i) & 1) === 1;
        const a = size - 11 + (i % 3);
        const b = Math.floor(i / 3);
        this.set(a, b, dark);
        this.set(b, a, dark);
      }
    }
  }

  /** The format bits: around the top-left finder, and split beside the other two. */
  placeFormat(mask) {
    const { size } = this;
    const bits = formatBits(mask);
    const bit = (i) => ((bits >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) this.set(8, i, bit(i));
    this.set(8, 7, bit(6));
    this.set(8, 8, bit(7));
    this.set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) this.set(size - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.set(8, size - 15 + i, bit(i));
    this.set(8, size - 8, true);
  }

  /** The codewords' bits, most significant first, up and down two columns at a time from
   *  the bottom right, skipping the vertical timing pattern's column. */
  placeCodewords(codewords) {
    const { size } = this;
    let index = 0;
    const total = codewords.length * 8;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      const upward = ((size - 1 - right) >> 1) % 2 === 0;
      for (let step = 0; step < size; step++) {
        const y = upward ? size - 1 - step : step;
        for (const x of [right, right - 1]) {
          if (this.reserved[y][x]) continue;
          if (index < total) this.dark[y][x] = ((codewords[index >> 3] >>> (7 - (index & 7))) & 1) === 1;
          index++;
        }
      }
    }
  }

  applyMask(mask) {
    const test = MASKS[mask];
    for (let y = 0; y < this.size; y++) {
      for (let x = 0; x < this.size; x++) if (!this.reserved[y][x] && test(x, y)) this.dark[y][x] = !this.dark[y][x];
    }
  }
}

// ---- the penalty rules ------------------------------------------------------------------

const FINDER_LIKE = [
  [true, false, true, true, true, false, true, false, false, false, false],
  [false, false, false, false, true, false, true, true, true, false, true],
];

/** The standard's penalty score of a masked symbol (lower is better): runs of five or more
 *  (N1 = 3, +1 for each module more), 2×2 blocks of one colour (N2 = 3), 1:1:3:1:1 finder-like
 *  patterns with four light modules on one side (N3 = 40), and the dark share's distance
 *  from half (N4 = 10 for each full 5%). */
export function penalty(dark) {
  const size = dark.length;
  let score = 0;
  const lines = [];
  for (let y = 0; y < size; y++) lines.push(dark[y]);
  for (let x = 0; x < size; x++) lines.push(dark.map((row) => row[x]));
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= size; i++) {
      if (i < size && line[i] === line[i - 1]) {
        run++;
        continue;
      }
      if (run >= 5) score += 3 + (run - 5);
      run = 1;
    }
    for (let i = 0; i + 11 <= size; i++) {
      for (const pattern of FINDER_LIKE) {
        let match = true;
        for (let k = 0; k < 11 && match; k++) match = line[i + k] === pattern[k];
        if (match) score += 40;
      }
    }
  }
  for (let y = 0; y + 1 < size; y++) {
    for (let x = 0; x + 1 < size; x++) {
      const colour = dark[y][x];
      if (dark[y][x + 1] === colour && dark[y + 1][x] === colour && dark[y + 1][x + 1] === colour) score += 3;
    }
  }
  let darkCount = 0;
  for (const row of dark) for (const module of row) if (module) darkCount++;
  const total = size * size;
  score += Math.floor(Math.abs(darkCount * 20 - total * 10) / total) * 10;
  return score;
}

// ---- the symbol ---------------------------------------------------------------------------

/** `text` (or bytes) as a QR code: `{ version, mask, size, modules }`, modules[y][x] true
 *  where dark. `mask` forces a mask (0-7) instead of the penalty rules' choice. Throws a
 *  RangeError when the text is longer than version 40 holds (2,331 bytes). */
export function encodeQR(text, { mask: forcedMask, minVersion = 1 } = {}) {
  const bytes = typeof text === 'string' ? Array.from(new TextEncoder().encode(text)) : Array.from(text);
  let version = Math.max(1, minVersion);
  while (version <= 40 && byteCapacity(version) < bytes.length) version++;
  if (version > 40) throw new RangeError(`A QR code holds at most ${byteCapacity(40)} bytes at level M.`);
  const codewords = interleavedCodewords(dataCodewordsFor(bytes, version), version);
  const base = new Matrix(version);
  base.placeFunctionPatterns();
  base.placeCodewords(codewords);
  let best = null;
  for (let mask = 0; mask < 8; mask++) {
    if (forcedMask !== undefined && mask !== forcedMask) continue;
    const candidate = new Matrix(version);
    candidate.dark = base.dark.map((row) => row.slice());
    candidate.reserved = base.reserved;
    candidate.applyMask(mask);
    candidate.placeFormat(mask);
    const score = penalty(candidate.dark);
    if (!best || score < best.score) best = { score, mask, dark: candidate.dark };
  }
  return { version, mask: best.mask, size: base.size, modules: best.dark };
}

/** The symbol as SVG markup: one path of dark squares on a light background, with a quiet
 *  zone of `quiet` modules (the standard asks for 4) on each side; `title` labels it. */
export function qrSVG(symbol, { quiet = 4, title = '' } = {}) {
  const full = symbol.size + quiet * 2;
  let path = '';
  symbol.modules.forEach((row, y) => {
    row.forEach((dark, x) => { if (dark) path += `M${x + quiet} ${y + quiet}h1v1h-1z`; });
  });
  const escaped = String(title).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  // Unlabelled, it is a picture its container names (aria-hidden here).
  const named = escaped ? ` role="img" aria-label="${escaped.replace(/"/g, '&quot;')}"` : ' aria-hidden="true"';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${full} ${full}" shape-rendering="crispEdges"${named}>`
    + `<rect width="${full}" height="${full}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`;
}
