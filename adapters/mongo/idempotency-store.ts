import type { IdempotencyRecord, IdempotencyStore } from '../../server/ports/idempotency.js';
import { isDuplicateKey, type IdempotencyDoc, type MemoryCollections } from './memory-collections.js';

/** Idempotency-Key records on MongoDB (`idempotency_keys`, expired by a TTL index on `expiresAt`). */
export function createMongoIdempotencyStore(c: Pick<MemoryCollections, 'idem'>): IdempotencyStore {
  const { idem } = c;
  return {
    async get(tenantId, key, now) {
      const d = await idem.findOne({ _id: `${tenantId}:${key}`, expiresAt: { $gt: new Date(now) } });
      return d ? toIdempotency(d) : null;
    },
    async putIfAbsent(tenantId, record) {
      const id = `${tenantId}:${record.key}`;
      const doc: IdempotencyDoc = {
        _id: id,
        tenantId,
        key: record.key,
        requestHash: record.requestHash,
        response: record.response,
        createdAt: record.createdAt,
        expiresAt: new Date(record.expiresAt),
      };
      try {
        // Replaces only an expired record (the TTL monitor may not have removed it yet).
        const res = await idem.replaceOne({ _id: id, expiresAt: { $lte: new Date(record.createdAt) } }, doc, { upsert: true });
        if (res.matchedCount + res.upsertedCount === 1) return null;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const existing = await idem.findOne({ _id: id });
      return existing ? toIdempotency(existing) : null;
    },
    async purgeExpired(now) {
      return (await idem.deleteMany({ expiresAt: { $lte: new Date(now) } })).deletedCount;
    },
  };
}

function toIdempotency(d: IdempotencyDoc): IdempotencyRecord {
  return { key: d.key, requestHash: d.requestHash, response: d.response, createdAt: d.createdAt, expiresAt: d.expiresAt.toISOString() };
}
