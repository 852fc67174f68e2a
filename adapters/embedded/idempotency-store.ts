import type { IdempotencyStore } from '../../server/ports/idempotency.js';
import type { EmbeddedDatabase } from './database.js';

/** Idempotency records of the embedded profile (`idempotency_keys`, written by the write queue). */
export function createEmbeddedIdempotencyStore(db: EmbeddedDatabase): IdempotencyStore {
  const purge = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');

  return {
    async purgeExpired(now) {
      return purge.run([now]).changes;
    },
  };
}
