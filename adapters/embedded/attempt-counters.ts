import { RateLimiterSQLite } from 'rate-limiter-flexible';
import type { AttemptCounters } from '../../server/ports/attempt-counters.js';
import type { EmbeddedDatabase } from './database.js';

/**
 * Attempt counters in the embedded database (table `rate_limits`, created by migration 40), through
 * rate-limiter-flexible's SQLite store: libsql speaks better-sqlite3's API. Every process opened on
 * the file counts together. Expired rows are cleared hourly (an unref'd timer).
 */
export function createEmbeddedAttemptCounters(db: EmbeddedDatabase): AttemptCounters {
  return (options) =>
    new RateLimiterSQLite({
      ...options,
      storeClient: db,
      storeType: 'better-sqlite3',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout: true,
    });
}
