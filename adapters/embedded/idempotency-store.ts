import type { IdempotencyRecord, IdempotencyStore } from '../../server/ports/idempotency.js';
import type { EmbeddedDatabase } from './database.js';

interface Row {
  key: string;
  request_hash: string;
  response: string;
  created_at: string;
  expires_at: string;
}

const toRecord = (r: Row): IdempotencyRecord => ({
  key: r.key,
  requestHash: r.request_hash,
  response: JSON.parse(r.response) as unknown,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

/** Idempotency records of the embedded profile (`idempotency_keys`, shared with the write queue). */
export function createEmbeddedIdempotencyStore(db: EmbeddedDatabase): IdempotencyStore {
  const get = db.prepare('SELECT key, request_hash, response, created_at, expires_at FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND expires_at > ?');
  const put = db.prepare(`INSERT INTO idempotency_keys (tenant_id, key, request_hash, response, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant_id, key) DO UPDATE SET request_hash = excluded.request_hash, response = excluded.response,
      created_at = excluded.created_at, expires_at = excluded.expires_at
    WHERE idempotency_keys.expires_at <= excluded.created_at`);
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');

  return {
    async get(tenantId, key, now) {
      const row = get.get([tenantId, key, now]) as Row | undefined;
      return row ? toRecord(row) : null;
    },
    async putIfAbsent(tenantId, record) {
      const stored = put.run([tenantId, record.key, record.requestHash, JSON.stringify(record.response), record.createdAt, record.expiresAt]).changes === 1;
      if (stored) return null;
      const row = get.get([tenantId, record.key, record.createdAt]) as Row | undefined;
      return row ? toRecord(row) : null;
    },
    async purgeExpired(now) {
      return purge.run([now]).changes;
    },
  };
}
