import type { Db } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import type { AttemptCounters } from '../../server/ports/attempt-counters.js';

/**
 * Attempt counters in MongoDB (collection `rate_limits`; rate-limiter-flexible's Mongo store creates
 * its unique key index and a TTL index on `expire`), shared by every instance on the database.
 */
export function createMongoAttemptCounters(db: Db): AttemptCounters {
  return {
    counter: (options) => new RateLimiterMongo({ ...options, storeClient: db, tableName: 'rate_limits' }),
    // The TTL index on `expire` removes ended windows.
    purgeExpired: async () => 0,
  };
}
