import { describe, expect, it } from 'vitest';
import { NamespaceTimeline } from '../../adapters/embedded/search/namespace-timeline.js';

const all = () => true;

describe('NamespaceTimeline', () => {
  it('orders by write time, then document id, whether built by inserts or by a sealed bulk load', () => {
    const inserted = new NamespaceTimeline();
    const bulk = new NamespaceTimeline();
    const docs: [number, number][] = [[5, 100], [2, 100], [9, 50], [1, 300], [7, 200]];
    for (const [id, t] of docs) inserted.insert(id, t);
    for (const [id, t] of docs) bulk.append(id, t);
    bulk.seal();
    for (const line of [inserted, bulk]) {
      expect(line.size).toBe(5);
      // 9@50 < 2@100 < 5@100 < 7@200 < 1@300
      expect(line.neighbour(2, 100, -1, 1e9, all)).toBe(9);
      expect(line.neighbour(2, 100, 1, 1e9, all)).toBe(5);
      expect(line.neighbour(5, 100, -1, 1e9, all)).toBe(2);
      expect(line.neighbour(9, 50, -1, 1e9, all)).toBeNull();
      expect(line.neighbour(1, 300, 1, 1e9, all)).toBeNull();
    }
  });

  it('steps over refused documents, and stops at the window', () => {
    const line = new NamespaceTimeline();
    for (let i = 1; i <= 6; i++) line.insert(i, i * 10);
    expect(line.neighbour(4, 40, -1, 100, (id) => id !== 3)).toBe(2);
    expect(line.neighbour(4, 40, 1, 100, (id) => id > 5)).toBe(6);
    // 2 is 20 ms before 4: outside a 15 ms window once 3 is refused.
    expect(line.neighbour(4, 40, -1, 15, (id) => id !== 3)).toBeNull();
    expect(line.neighbour(4, 40, -1, 10, all)).toBe(3);
  });

  it('forgets removed documents and answers for a time it does not hold', () => {
    const line = new NamespaceTimeline();
    for (let i = 1; i <= 4; i++) line.insert(i, i * 10);
    line.remove(2, 20);
    line.remove(2, 20); // absent: nothing happens
    line.remove(3, 999); // wrong time: not found, nothing removed
    expect(line.size).toBe(3);
    expect(line.neighbour(3, 30, -1, 1e9, all)).toBe(1);
    // A position between stored documents (the document itself is not held).
    expect(line.neighbour(99, 25, -1, 1e9, all)).toBe(1);
    expect(line.neighbour(99, 25, 1, 1e9, all)).toBe(3);
  });
});
