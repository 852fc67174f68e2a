import type { IdempotencyStore } from '../../server/ports/idempotency.js';
import type { MemoryCollections } from './memory-collections.js';

/** Idempotency-Key records on MongoDB (`idempotency_keys`, written by the write queue, expired by a TTL index on `expiresAt`). */
export function createMongoIdempotencyStore(c: Pick<MemoryCollections, 'idem'>): IdempotencyStore {
  const { idem } = c;
  return {
    async purgeExpired(now) {
      return (await idem.deleteMany({ expiresAt: { $lte: new Date(now) } })).deletedCount;
    },
  };
}
