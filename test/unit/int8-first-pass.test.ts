import { describe, expect, it } from 'vitest';
import { SIGN_QUERY_STEPS } from '../../adapters/embedded/search/int8-kernels.js';
import { Int8Matrix } from '../../adapters/embedded/search/int8-scan.js';

// 320 dimensions: a first group of 256 where the query is dense (estimated from the rows' signs) and a
// second of 64 where it has one non-zero block (scanned exactly).
const dim = 320;
/** `dim` values in [-1, 1) from a seeded generator (mulberry32), the second group scaled down. */
function valuesOf(seed: number): Float32Array {
  let a = seed;
  return Float32Array.from({ length: dim }, (_, j) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 2 - 1) * (j < 256 ? 1 : 0.01);
  });
}
const value = (r: number, j: number) => valuesOf(r + 1)[j]!;
const bytesOf = (r: number) => new Uint8Array(valuesOf(r + 1).buffer);
const random = valuesOf(99_999);
const query = Float32Array.from({ length: dim }, (_, j) => (j < 256 ? random[j]! : j >= 272 && j < 288 ? (j % 3) - 1 : 0));

/** The estimate the sign pass documents: m · Σ q̂_i · s_i over the first group, from the row as stored. */
function referenceEstimate(m: Int8Matrix, r: number, q: Float32Array): number {
  const stored = m.row(r).subarray(0, 256);
  let lo = Infinity;
  let hi = -Infinity;
  for (let j = 0; j < 256; j++) {
    lo = Math.min(lo, q[j]!);
    hi = Math.max(hi, q[j]!);
  }
  const delta = (hi - lo) / SIGN_QUERY_STEPS;
  let magnitude = 0;
  let sum = 0;
  for (let j = 0; j < 256; j++) {
    magnitude += Math.abs(stored[j]!);
    sum += (lo + delta * Math.round((q[j]! - lo) / delta)) * (stored[j]! > 0 ? 1 : -1);
  }
  return (magnitude / 256) * sum;
}

function dotRange(m: Int8Matrix, r: number, q: Float32Array, from: number, to: number): number {
  const stored = m.row(r);
  let s = 0;
  for (let j = from; j < to; j++) s += stored[j]! * q[j]!;
  return s;
}

// Without WebAssembly SIMD the cache keeps float rows and always scans in full (embedded-search-index.test.ts
// asserts that this runtime has it).
describe.skipIf(!Int8Matrix.supports(dim))('binary first pass of the int8 matrix', () => {
  it('estimates the dense group from the signs, scans the sparse one exactly, and rescores listed rows exactly, across growth and moves', () => {
    const rows = 601;
    const m = new Int8Matrix(dim);
    m.reserve(8, 0);
    for (let r = 0; r < 8; r++) m.set(r, bytesOf(r));
    m.reserve(rows, 8); // moves columns, scales, signs and statistics
    for (let r = 8; r < rows; r++) m.set(r, bytesOf(r));
    m.move(600, 2);
    const source = (r: number) => (r === 2 ? 600 : r);

    const full = Array.from(m.scan(query, rows)); // every group exact, the query on 16 bits as below
    const pass = m.firstPass(query, rows);
    expect(pass.first).not.toBeNull();
    const checked = [0, 2, 7, 8, 255, 256, 599];
    for (const r of checked) {
      expect(pass.exact[r]).toBeCloseTo(dotRange(m, r, query, 256, dim), 4);
      expect(pass.first![r]! - pass.exact[r]!).toBeCloseTo(referenceEstimate(m, r, query), 3);
      expect(m.row(r)[0]).toBeCloseTo(value(source(r), 0), 1);
    }
    const rest = m.exactOfEstimated(checked);
    checked.forEach((r, j) => {
      expect(rest[j]).toBeCloseTo(dotRange(m, r, query, 0, 256), 3);
      expect(pass.exact[r]! + rest[j]!).toBeCloseTo(full[r]!, 5); // the full scan's score
    });
    // The estimate ranks like the exact product: the rows it puts first are among the best.
    const exactOrder = [...Array(rows - 1).keys()].sort((a, b) => m.dot(b, query) - m.dot(a, query));
    const estOrder = [...Array(rows - 1).keys()].sort((a, b) => pass.first![b]! - pass.first![a]!);
    const best = new Set(exactOrder.slice(0, 10));
    expect(estOrder.slice(0, 100).filter((r) => best.has(r)).length).toBeGreaterThanOrEqual(9);
  });

  it('reads a group whose rows are mostly zero through postings that follow updates, moves and reloads', () => {
    // Group two holds 1–3 non-zero values a row (a hashed lexical part); group one is dense.
    const sparseRow = (r: number) => {
      const v = valuesOf(r + 1);
      v.fill(0, 256);
      for (let k = 0; k <= r % 3; k++) v[256 + ((r * 7 + k * 13) % 64)] = (k % 2 === 0 ? 1 : -1) * (0.2 + (r % 5) / 10);
      return new Uint8Array(v.buffer);
    };
    const rows = 300;
    const m = new Int8Matrix(dim);
    m.reserve(rows, 0);
    for (let r = 0; r < rows; r++) m.set(r, sparseRow(r));
    // Non-zero in every block of group two (four blocks: too few to estimate), so every entry counts.
    const q = Float32Array.from({ length: dim }, (_, j) => (j < 256 ? random[j]! : ((j % 5) - 2) / 2));
    const check = (live: number) => {
      const full = Array.from(m.scan(q, live));
      const pass = m.firstPass(q, live);
      const rest = m.exactOfEstimated([...Array(live).keys()]);
      for (let r = 0; r < live; r++) {
        expect(pass.exact[r]).toBeCloseTo(dotRange(m, r, q, 256, dim), 4);
        expect(pass.exact[r]! + rest[r]!).toBeCloseTo(full[r]!, 5);
      }
    };
    check(rows); // builds the postings
    m.set(5, sparseRow(140)); // an update: row 5's old entries go, the new ones come
    m.set(6, new Uint8Array(new Float32Array(dim).buffer)); // a row of zeros leaves nothing behind
    m.move(299, 7); // a drop: row 7's entries go, row 299's become row 7's
    check(rows - 1);
    m.set(299, sparseRow(11)); // the vacated slot written again
    check(rows);
    m.reserve(rows * 2, 0); // a full reload (into a larger matrix) forgets every row and its postings
    for (let r = 0; r < rows; r++) m.set(r, sparseRow(r + 100));
    check(rows);
  });

  it('scans every group exactly when none is dense enough to estimate', () => {
    const m = new Int8Matrix(dim);
    m.reserve(40, 0);
    for (let r = 0; r < 40; r++) m.set(r, bytesOf(r));
    const sparse = Float32Array.from({ length: dim }, (_, j) => (j < 32 || (j >= 272 && j < 288) ? Math.sin(j) : 0));
    const pass = m.firstPass(sparse, 40);
    expect(pass.first).toBeNull();
    const full = Array.from(m.scan(sparse, 40));
    const again = m.firstPass(sparse, 40);
    for (let r = 0; r < 40; r++) expect(again.exact[r]).toBeCloseTo(full[r]!, 6);
  });
});
