import { AppError } from '../errors.js';
import type { AttemptCounters } from '../ports/attempt-counters.js';

/**
 * Bounds account creation per client address: every sign-up costs an argon2 hash (~20 MiB and tens
 * of milliseconds of CPU), a user, a tenant and audit rows, so an open `POST /auth/signup` is a cheap way
 * to exhaust a server or fill its store. Once an address has spent its budget within the window, sign-ups
 * from it answer 429 RATE_LIMITED with Retry-After, before any hashing.
 *
 * Counted in the profile's store like failed sign-ins (`login-throttle.ts`), so every process of
 * `serve --processes N` and every instance counts together.
 */
export interface SignupThrottle {
  /** Counts one sign-up attempt from `ip`; throws RATE_LIMITED (429, retryAfterSeconds) past the budget. */
  consume(ip: string): Promise<void>;
}

export function createSignupThrottle(perAddressPerHour: number, counters: AttemptCounters): SignupThrottle {
  if (perAddressPerHour <= 0) return { consume: async () => {} };
  const byIp = counters.counter({ keyPrefix: 'signup_ip', points: perAddressPerHour, duration: 3600 });
  return {
    async consume(ip) {
      const current = await byIp.get(ip);
      if (current && current.consumedPoints >= perAddressPerHour) {
        throw new AppError('RATE_LIMITED', 'too many sign-ups from this address; try again later', {
          retryAfterSeconds: Math.max(1, Math.ceil(current.msBeforeNext / 1000)),
        });
      }
      await byIp.penalty(ip, 1);
    },
  };
}
