import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../server/services/time-ordered-id.js';

describe('timeOrderedId', () => {
  it('makes valid version-7 UUIDs carrying the current time', () => {
    const before = Date.now();
    const id = timeOrderedId();
    const after = Date.now();
    expect(validate(id)).toBe(true);
    expect(version(id)).toBe(7);
    expect(id[19]).toMatch(/[89ab]/); // RFC 9562 variant
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 1);
  });

  it('is strictly increasing and unique across many pool refills', () => {
    // 5,000 ids span ~20 refills of the 256-id pool and, on any machine, many ids per millisecond.
    const ids = Array.from({ length: 5_000 }, () => timeOrderedId());
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('draws different random tails (the pool is not reused)', () => {
    const tails = new Set(Array.from({ length: 1_000 }, () => timeOrderedId().slice(-12)));
    expect(tails.size).toBe(1_000);
  });
});
