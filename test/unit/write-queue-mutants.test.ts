import { describe, expect, it } from 'vitest';
import type { EnqueueRequest, WriteQuota } from '../../server/ports/write-queue.js';
import { idempotencyOutcome, memorySizeBytes, sizeLimitExceeded } from '../../server/storage-rules/write-acceptance.js';

// Acceptance rules of the write queue at their edges, found unguarded by mutation testing
// (docs/mutation-testing.md): what a memory weighs, when a stored Idempotency-Key stops counting,
// and that a write adding nothing is never refused for size.

describe('memorySizeBytes', () => {
  it('adds the UTF-8 bytes of title, content, tags and metadata', () => {
    const size = memorySizeBytes({ title: 'é', content: 'abc', tags: ['x'], metadata: { k: 1 } });
    // 'é' is 2 bytes, 'abc' 3, '["x"]' 5, '{"k":1}' 7.
    expect(size).toBe(2 + 3 + 5 + 7);
  });
});

describe('idempotencyOutcome', () => {
  const at = '2030-01-01T00:00:00.000Z';
  const req = { idempotency: { requestHash: 'h1' }, acceptedAt: at } as unknown as EnqueueRequest;
  const receipt = () => ({}) as never;

  it('a key that expires exactly when the request is accepted no longer counts', () => {
    expect(idempotencyOutcome(req, { requestHash: 'h1', expiresAt: at, receipt })).toBeNull();
  });

  it('a key that expires a moment later replays, or refuses another body', () => {
    const later = '2030-01-01T00:00:00.001Z';
    expect(idempotencyOutcome(req, { requestHash: 'h1', expiresAt: later, receipt })?.kind).toBe('replayed');
    expect(idempotencyOutcome(req, { requestHash: 'h2', expiresAt: later, receipt })?.kind).toBe('idempotency_mismatch');
  });
});

describe('sizeLimitExceeded', () => {
  const quota: WriteQuota = { period: '2030-01', writes: null, storageBytes: 100, memories: 2 };

  it('never refuses a write that adds no memory and no bytes, even over quota', () => {
    expect(sizeLimitExceeded(quota, { memoryCount: 5, storageBytes: 500 }, { memories: 0, bytes: 0 })).toBeNull();
  });

  it('refuses a write that would pass either limit, and allows one that reaches it exactly', () => {
    expect(sizeLimitExceeded(quota, { memoryCount: 1, storageBytes: 90 }, { memories: 1, bytes: 10 })).toBeNull();
    expect(sizeLimitExceeded(quota, { memoryCount: 2, storageBytes: 0 }, { memories: 1, bytes: 1 })).toEqual({
      kind: 'quota_exceeded',
      limit: 'memories',
    });
    expect(sizeLimitExceeded(quota, { memoryCount: 0, storageBytes: 100 }, { memories: 0, bytes: 1 })).toEqual({
      kind: 'quota_exceeded',
      limit: 'storage',
    });
  });
});
