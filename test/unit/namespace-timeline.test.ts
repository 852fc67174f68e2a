import { describe, expect, it } from 'vitest';
import { NamespaceTimeline } from '../../adapters/embedded/search/namespace-timeline.js';

const all = () => true;

describe('NamespaceTimeline', () => {
  it('orders by write time, then document id, whether built by inserts or by a sealed bulk load', () => {
    const inserted = new NamespaceTimeline();
    const bulk = new NamespaceTimeline();
    const docs: [number, number][] = [
      [5, 100],
      [2, 100],
      [9, 50],
      [1, 300],
      [7, 200],
    ];
    for (const [id, t] of docs) inserted.insert(id, t);
    for (const [id, t] of docs) bulk.append(id, t);
    bulk.seal();
    for (const line of [inserted, bulk]) {
      expect(line.size).toBe(5);
      // 9@50 < 2@100 < 5@100 < 7@200 < 1@300
      expect(line.neighbours(2, 100, 1e9, all).before).toBe(9);
      expect(line.neighbours(2, 100, 1e9, all).after).toBe(5);
      expect(line.neighbours(5, 100, 1e9, all).before).toBe(2);
      expect(line.neighbours(9, 50, 1e9, all).before).toBeNull();
      expect(line.neighbours(1, 300, 1e9, all).after).toBeNull();
    }
  });

  it('steps over refused documents, and stops at the window', () => {
    const line = new NamespaceTimeline();
    for (let i = 1; i <= 6; i++) line.insert(i, i * 10);
    expect(line.neighbours(4, 40, 100, (id) => id !== 3).before).toBe(2);
    expect(line.neighbours(4, 40, 100, (id) => id > 5).after).toBe(6);
    // 2 is 20 ms before 4: outside a 15 ms window once 3 is refused.
    expect(line.neighbours(4, 40, 15, (id) => id !== 3).before).toBeNull();
    expect(line.neighbours(4, 40, 10, all).before).toBe(3);
  });

  it('forgets removed documents and answers for a time it does not hold', () => {
    const line = new NamespaceTimeline();
    for (let i = 1; i <= 4; i++) line.insert(i, i * 10);
    line.remove(2, 20);
    line.remove(2, 20); // absent: nothing happens
    line.remove(3, 999); // wrong time: not found, nothing removed
    expect(line.size).toBe(3);
    expect(line.neighbours(3, 30, 1e9, all).before).toBe(1);
    // A position between stored documents (the document itself is not held).
    expect(line.neighbours(99, 25, 1e9, all).before).toBe(1);
    expect(line.neighbours(99, 25, 1e9, all).after).toBe(3);
  });
});
