import { describe, expect, it } from 'vitest';
import { countMoves, storageQuotaExceeded } from '../../server/storage-rules/knowledge-storage.js';

describe('storageQuotaExceeded', () => {
  it.each([
    { name: 'unlimited', quota: null, stored: 10_000, delta: 500, exceeded: false },
    { name: 'growing to exactly the quota', quota: 1_000, stored: 600, delta: 400, exceeded: false },
    { name: 'growing one byte past it', quota: 1_000, stored: 600, delta: 401, exceeded: true },
    { name: 'shrinking while over it', quota: 1_000, stored: 5_000, delta: -10, exceeded: false },
    { name: 'no change while over it', quota: 1_000, stored: 5_000, delta: 0, exceeded: false },
    { name: 'any growth while over it', quota: 1_000, stored: 5_000, delta: 1, exceeded: true },
  ])('$name → $exceeded', ({ quota, stored, delta, exceeded }) => {
    expect(storageQuotaExceeded({ storageBytes: quota }, stored, delta)).toBe(exceeded);
  });
});

describe('countMoves', () => {
  const incomplete = { status: 'INCOMPLETE', completenessScore: 0.5 } as const;
  const partial = { status: 'PARTIALLY_COMPLETE', completenessScore: 0.5 } as const;
  const fuller = { status: 'INCOMPLETE', completenessScore: 0.75 } as const;
  it.each([
    { name: 'a create adds one', before: null, after: incomplete, moves: [{ ...incomplete, by: 1 }] },
    { name: 'a delete takes one away', before: incomplete, after: null, moves: [{ ...incomplete, by: -1 }] },
    { name: 'an unchanged key moves nothing', before: incomplete, after: { ...incomplete }, moves: [] },
    {
      name: 'a new status moves one',
      before: incomplete,
      after: partial,
      moves: [
        { ...incomplete, by: -1 },
        { ...partial, by: 1 },
      ],
    },
    {
      name: 'a new score moves one',
      before: incomplete,
      after: fuller,
      moves: [
        { ...incomplete, by: -1 },
        { ...fuller, by: 1 },
      ],
    },
  ])('$name', ({ before, after, moves }) => {
    expect(countMoves(before, after)).toEqual(moves);
  });
});
