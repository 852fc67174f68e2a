import { describe, expect, it } from 'vitest';
import { TopK } from '../../adapters/embedded/search/top-k.js';

describe('TopK', () => {
  it('keeps the k best by score then lower id, whatever order the pairs arrive in', () => {
    const pairs: [number, number][] = [];
    for (let id = 0; id < 200; id++) pairs.push([id, Math.floor(id / 7) % 5]); // many ties
    const expected = [...pairs].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 23);
    for (const order of [pairs, [...pairs].reverse(), [...pairs].sort((a, b) => ((a[0] * 37) % 101) - ((b[0] * 37) % 101))]) {
      const top = new TopK(23);
      for (const [id, score] of order) top.push(id, score);
      expect(top.sorted()).toEqual(expected);
    }
  });

  it('reports the score a pair must reach once full, and holds nothing for k = 0', () => {
    const top = new TopK(2);
    expect(top.minScore).toBe(-Infinity);
    top.push(1, 0.5);
    top.push(2, 0.9);
    top.push(3, 0.1);
    expect(top.minScore).toBe(0.5);
    expect(top.sorted()).toEqual([
      [2, 0.9],
      [1, 0.5],
    ]);
    const none = new TopK(0);
    none.push(1, 1);
    expect(none.sorted()).toEqual([]);
  });
});
