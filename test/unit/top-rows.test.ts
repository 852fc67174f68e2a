import { describe, expect, it } from 'vitest';
import { kthLargest, topRows } from '../../adapters/embedded/search/top-rows.js';

/** The reference: accepted rows by score, then by key (or row), the first `count`, as a sorted set. */
function brute(scores: Float32Array, count: number, accepts: (r: number) => boolean, keys?: Int32Array): number[] {
  const rows = [...scores.keys()].filter(accepts);
  rows.sort((a, b) => scores[b]! - scores[a]! || (keys ? keys[a]! - keys[b]! : a - b));
  return rows.slice(0, count).sort((a, b) => a - b);
}

const sorted = (rows: Int32Array) => [...rows].sort((a, b) => a - b);

/** Scores on a coarse grid (many exact ties) from a seeded generator. */
function scoresOf(n: number, seed: number, levels: number): Float32Array {
  let a = seed;
  return Float32Array.from({ length: n }, () => {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0;
    return Math.floor(((a >>> 8) / 2 ** 24) * levels) / levels;
  });
}

describe('topRows', () => {
  it('selects what sorting would, ties at the cut by key, with and without a selective filter', () => {
    const n = 20_000;
    const scores = scoresOf(n, 7, 500);
    const keys = Int32Array.from({ length: n }, (_, i) => (i * 7919) % n); // a permutation: rows and keys disagree
    const all = () => true;
    const rare = (r: number) => r % 97 === 0; // fewer accepted rows above the sampled threshold than asked for
    for (const count of [1, 10, 100, 1000]) {
      expect(sorted(topRows(scores, count, all, undefined, keys))).toEqual(brute(scores, count, all, keys));
      expect(sorted(topRows(scores, count, all))).toEqual(brute(scores, count, all));
      expect(sorted(topRows(scores, count, rare, undefined, keys))).toEqual(brute(scores, count, rare, keys));
    }
  });

  it('returns every accepted row when there are no more than asked for, and lists through the given function', () => {
    const scores = scoresOf(50, 3, 10);
    expect(sorted(topRows(scores, 80, (r) => r !== 4))).toEqual([...Array(50).keys()].filter((r) => r !== 4));
    const big = scoresOf(10_000, 11, 1000);
    const thresholds: number[] = [];
    const lister = (t: number) => {
      thresholds.push(t);
      return [...big.keys()].filter((r) => big[r]! >= t);
    };
    expect(sorted(topRows(big, 100, () => true, lister))).toEqual(brute(big, 100, () => true));
    expect(thresholds.length).toBeGreaterThan(0);
    expect(thresholds[0]).toBeGreaterThan(-Infinity); // a sampled threshold, not every row
  });

  it('kthLargest agrees with a sort', () => {
    const values = Float64Array.from(scoresOf(3001, 5, 300));
    const desc = [...values].sort((a, b) => b - a);
    for (const k of [1, 2, 17, 1500, 3001]) expect(kthLargest(values.slice(), k)).toBe(desc[k - 1]);
  });
});
