import { RateLimiterSQLite } from 'rate-limiter-flexible';
import type { AttemptCounters } from '../../server/ports/attempt-counters.js';
import type { EmbeddedDatabase } from './database.js';

/**
 * Attempt counters in the embedded database (table `rate_limits`, created by migration 40), through
 * rate-limiter-flexible's SQLite store: libsql speaks better-sqlite3's API. Every process opened on
 * the file counts together. Expired rows are deleted by `purgeExpired` (the `maintenance.purge-ended`
 * job calls it), not by the library's own timer, whose failures would be unhandled rejections.
 */
export function createEmbeddedAttemptCounters(db: EmbeddedDatabase): AttemptCounters {
  const purge = db.prepare('DELETE FROM rate_limits WHERE expire IS NOT NULL AND expire < ?');
  return {
    counter: (options) =>
      new RateLimiterSQLite({
        ...options,
        storeClient: db,
        storeType: 'better-sqlite3',
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
      }),
    async purgeExpired(nowMs) {
      return purge.run([nowMs]).changes;
    },
  };
}
