import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { AttemptCounters } from '../../server/ports/attempt-counters.js';

/** Attempt counters in this process's memory (rate-limiter-flexible's memory store), for unit tests that need no store. */
export function createInProcessAttemptCounters(): AttemptCounters {
  return {
    counter: (options) => new RateLimiterMemory(options),
    purgeExpired: async () => 0, // the memory store expires its own keys
  };
}
