// The QR encoder (js/qrCode.js) on vectors derived from the standard (ISO/IEC 18004): the
// format and version bits, the Reed-Solomon generator polynomials and codewords, the byte
// capacities at level M, and whole symbols. The whole-symbol vectors were written once by
// the PyPI package `qrcode` 8.x (byte mode, level M, the same mask forced); nothing here
// needs it. Run: node --test Tests/JS
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  encodeQR, formatBits, versionBits, generatorPolynomial, reedSolomon, byteCapacity, totalCodewords,
  alignmentPositions, penalty, qrSVG,
} from '../../Sources/WebApp/Public/js/qrCode.js';

const rows = (symbol) => symbol.modules.map((row) => row.map((dark) => (dark ? '#' : '.')).join(''));

test('format bits for level M and each mask (the standard\'s table)', () => {
  const table = [
    '101010000010010', '101000100100101', '101111001111100', '101101101001011',
    '100010111111001', '100000011001110', '100111110010111', '100101010100000',
  ];
  table.forEach((bits, mask) => assert.equal(formatBits(mask).toString(2).padStart(15, '0'), bits, `mask ${mask}`));
});

test('version bits, BCH(18,6), for versions 7 to 10', () => {
  assert.equal(versionBits(7), 0x07c94);
  assert.equal(versionBits(8), 0x085bc);
  assert.equal(versionBits(9), 0x09a99);
  assert.equal(versionBits(10), 0x0a4d3);
});

test('generator polynomials as powers of α (the standard\'s Annex A)', () => {
  const log = new Map();
  for (let power = 0, value = 1; power < 255; power++) {
    log.set(value, power);
    value <<= 1;
    if (value & 0x100) value ^= 0x11d;
  }
  const exponents = (poly) => poly.map((coefficient) => log.get(coefficient));
  assert.deepEqual(exponents(generatorPolynomial(7)), [0, 87, 229, 146, 149, 238, 102, 21]);
  assert.deepEqual(exponents(generatorPolynomial(10)), [0, 251, 67, 46, 61, 118, 70, 64, 94, 32, 45]);
});

test('Reed-Solomon codewords of HELLO WORLD in version 1-M (alphanumeric data)', () => {
  const data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17];
  assert.deepEqual(reedSolomon(data, 10), [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
});

test('sizes: codewords, byte capacities at level M and alignment patterns', () => {
  assert.deepEqual([1, 2, 7, 10, 40].map(totalCodewords), [26, 44, 196, 346, 3706]);
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 40].map(byteCapacity),
    [14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 2331]);
  assert.deepEqual(alignmentPositions(1), []);
  assert.deepEqual(alignmentPositions(2), [6, 18]);
  assert.deepEqual(alignmentPositions(7), [6, 22, 38]);
  assert.deepEqual(alignmentPositions(32), [6, 34, 60, 86, 112, 138]);
});

test('HELLO, version 1, mask 2: the whole symbol', () => {
  const symbol = encodeQR('HELLO', { mask: 2 });
  assert.equal(symbol.version, 1);
  assert.deepEqual(rows(symbol), [
    '#######....#..#######',
    '#.....#...#.#.#.....#',
    '#.###.#.##....#.###.#',
    '#.###.#.#.#.#.#.###.#',
    '#.###.#.##..#.#.###.#',
    '#.....#.####..#.....#',
    '#######.#.#.#.#######',
    '........##...........',
    '#.#####...##..#####..',
    '.##.##.#.######..##..',
    '..#####.#...#.##.###.',
    '.##.#....######..##..',
    '.#.######...#..#..#.#',
    '........#.#.#..#.#...',
    '#######..###.#..#.##.',
    '#.....#.#.#....#####.',
    '#.###.#.##.#.#..#.##.',
    '#.###.#.##.#####.#...',
    '#.###.#.##..#.##..#..',
    '#.....#..######.###..',
    '#######.##..#...#.##.',
  ]);
});

test('an invite link, version 4, mask 6: the whole symbol', () => {
  const symbol = encodeQR('https://example.com/#/join/geo-101/0123456789abcdef01234567', { mask: 6 });
  assert.equal(symbol.version, 4);
  assert.deepEqual(rows(symbol), [
    '#######.##..###..##.#.#...#######',
    '#.....#.#.##.##.#.##....#.#.....#',
    '#.###.#.##.#.###.....#..#.#.###.#',
    '#.###.#...##..#.###..#....#.###.#',
    '#.###.#.#..###.##..##...#.#.###.#',
    '#.....#.....#####......##.#.....#',
    '#######.#.#.#.#.#.#.#.#.#.#######',
    '............##.##..##...#........',
    '#..######..##...##.#...#.#..#.###',
    '#.#.#..##....###..###.##....####.',
    '##.##.#####..#.##.#..#.#..#.###.#',
    '...#....#.##.#.#.####..#.###..#..',
    '..#...##..##.#.##.#......##....##',
    '#.#.##.#.####.#..#..#..##.....#..',
    '##.#..##.##..###.###.#....##.##..',
    '##..#...#.####.#..##...#.#..#.#.#',
    '...#.######....#....#..#######...',
    '#..#.#.#.##.#..#.###..#...#.#.###',
    '.##.###....##..#..##..##..##.####',
    '####....#.###..##..#....###.###.#',
    '.##.#.#...##..#..##......#...#.#.',
    '##..##..##.#######.#.#####..##...',
    '#..#.###.##..###......#####....##',
    '#....#......####.#..#.#..#..#####',
    '##.##.#.####.####..##..######..#.',
    '........#...#..#..#.....#...#.#..',
    '#######.#.#..#.##..##.###.#.#.##.',
    '#.....#.#.###..#..##...##...#####',
    '#.###.#.##..##..#.###.#######..#.',
    '#.###.#.####.#.##..##.####.#.####',
    '#.###.#...#..###.####.##...######',
    '#.....#..#......#..#..##..###.###',
    '#######.#..#..####.#....#..###...',
  ]);
});

test('112 bytes, version 7 (with version information), mask 5: the whole symbol', () => {
  const text = 'https://onthemap.example.edu/#/join/world-geography-2026/0123456789abcdef01234567?' + 'q'.repeat(30);
  const symbol = encodeQR(text, { mask: 5 });
  assert.equal(symbol.version, 7);
  assert.deepEqual(rows(symbol), [
    '#######......##.#..#####.##...#.##..#.#######',
    '#.....#.#.#.#.##..##..#.####...###.#..#.....#',
    '#.###.#.####..#.###..#.##...##.###.#..#.###.#',
    '#.###.#.#.#....#.##..#.#######.###.##.#.###.#',
    '#.###.#..#.#..####..#####..#.###..###.#.###.#',
    '#.....#..######.##..#...#...#....#....#.....#',
    '#######.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#######',
    '........#..#.##.#..##...#...#.#####.#........',
    '#.....#.##.###.#.#..######........#..##..###.',
    '....##..#....#.#..###.#####.#.#######.##...#.',
    '...######.##.##..#.#....#.####...###.###...#.',
    '######.#...#...###...#.##.###.#.###.#######..',
    '.##.###.##.......##.#..##.#.#.#.####....##.#.',
    '.##..#..#.#.....#....###...#.###.#.###.#.####',
    '##.#####..#..#..#.#######.##.#.#.##..###.###.',
    '#......##.#.#...#..###.###.#..#..##.#..#..###',
    '..#..##.#.#.#...#.##.#..####.###.#...#.#.#...',
    '.##.#...#######.##...###.#..####.#.###....###',
    '##....##..#..#..###..#.##...#...##...#.#..###',
    '.###...###..#..#.##..#..###.#####..#....###..',
    '..#.######......###.#####.#..#.#...#######.#.',
    '##.##...#.#.#.####..#...##..#########...###..',
    '.##.#.#.##.#...#..#.#.#.#..#.#....###.#.#.##.',
    '.##.#...#####.##.##.#...#####.#####.#...#####',
    '#.########..##..###.#####.#.#..###..#####....',
    '##.##..#..#.....#####.#.##.#..#..#..##...#..#',
    '..#.####.#..#.#...#......##..#....#.##.###.#.',
    '..#.#..##..##.#........###.#..#..###.#.#.##.#',
    '.#.##.#..######.#.#..#..##...###.#..#.#.#....',
    '####.#.######.##.#..#.##...#.####..##.##.####',
    '#..##.#....##.##..#.#####..##...##.#.#####..#',
    '#.#....##....#..##.###.#...##.#.##.#..#...##.',
    '#.....##.........#.##....#.#..##.....#..##...',
    '##..#....##.#.#.####.#.#.####.#.####.#.##.##.',
    '....#.##..#.##..#.#.##.#.##.....######...##..',
    '.####...#####.#......#.##..##.###..##.#..####',
    '#..##.####.#.#####.######.#.##..#.#######..##',
    '........#..##...#..##...#..#.###.#.##...###.#',
    '#######...#..#..#.###.#.##.#......###.#.#.#..',
    '#.....#....##.......#...#.#..###.####...####.',
    '#.###.#...####.#....#####.....#..#.#######...',
    '#.###.#..####..#...##..###..#.#.##.#...##..##',
    '#.###.#..#.#######....####......##..#.###.#.#',
    '#.....#..#...####.#.##.#...##.#.######.####..',
    '#######.#.#.#...#.##....#.#..###....#.#....#.',
  ]);
});

test('the mask chosen is the one with the lowest penalty, the earliest on a tie', () => {
  const text = 'https://example.com/#/join/geo-101/0123456789abcdef01234567';
  const scores = [0, 1, 2, 3, 4, 5, 6, 7].map((mask) => penalty(encodeQR(text, { mask }).modules));
  const chosen = encodeQR(text);
  assert.equal(chosen.mask, scores.indexOf(Math.min(...scores)));
  assert.deepEqual(chosen.modules, encodeQR(text, { mask: chosen.mask }).modules);
});

test('the penalty rules, each on a small matrix', () => {
  const grid = (lines) => lines.map((line) => [...line].map((c) => c === '#'));
  // 5×5 all light: 10 runs of 5 (3 each), 16 2×2 blocks (3 each), no dark module (N4: 100).
  assert.equal(penalty(grid(['.....', '.....', '.....', '.....', '.....'])), 30 + 48 + 100);
  // A checkerboard: no runs, no blocks, 13 of 25 dark (2 points of a hundred from half: 0).
  assert.equal(penalty(grid(['#.#.#', '.#.#.', '#.#.#', '.#.#.', '#.#.#'])), 0);
  // An 11×11 checkerboard scores 0; one row of it made 1:1:3:1:1 with four light modules
  // after it, or before it, scores N3 = 40 (no run of five, no block, as many dark).
  const board = (row5) => grid([...Array(11)].map((_, y) => (y === 5 && row5 ? row5
    : [...Array(11)].map((__, x) => ((x + y) % 2 ? '.' : '#')).join(''))));
  assert.equal(penalty(board()), 0);
  assert.equal(penalty(board('#.###.#....')), 40);
  assert.equal(penalty(board('....#.###.#')), 40);
});

test('UTF-8 text, and the most version 40 holds', () => {
  assert.equal(encodeQR('Ünïcødé 日本').version, 2); // 18 bytes of UTF-8: version 1 holds 14
  assert.throws(() => encodeQR('x'.repeat(2332)), RangeError);
  assert.equal(encodeQR('x'.repeat(2331)).version, 40);
});

test('qrSVG draws a quiet zone of four modules and escapes its label', () => {
  const symbol = encodeQR('HELLO');
  const svg = qrSVG(symbol, { title: 'a <b> & "c"' });
  assert.match(svg, /viewBox="0 0 29 29"/);
  assert.match(svg, /aria-label="a &lt;b&gt; &amp; &quot;c&quot;"/);
  assert.match(svg, /<rect width="29" height="29" fill="#fff"\/><path fill="#000" d="M4 4h1v1h-1z/);
});
