import { AppError } from '../errors.js';
import type { AttemptCounters } from '../ports/attempt-counters.js';

/**
 * A budget of unauthenticated requests per client address for the endpoints that create state or cost
 * real work before anyone is known:
 * - sign-up: an argon2 hash (~20 MiB and tens of milliseconds of CPU), a user, a tenant, audit rows;
 * - starting an SSO sign-in: a stored pending login (state, nonce, PKCE verifier) per call.
 * Once an address has spent its budget within the window, the request answers 429 RATE_LIMITED with
 * Retry-After before doing anything.
 *
 * Counted in the profile's store like failed sign-ins (`login-throttle.ts`), so every process of
 * `serve --processes N` and every instance counts together.
 */
export interface AddressBudget {
  /** Counts one request from `ip`; throws RATE_LIMITED (429, retryAfterSeconds) past the budget. */
  consume(ip: string): Promise<void>;
}

export interface AddressBudgetOptions {
  /** Keeps this budget's counts apart from others in the store. */
  keyPrefix: string;
  /** Requests allowed per address within the window; 0 turns the budget off. */
  perWindow: number;
  windowSeconds: number;
  /** What is counted, for the error message ("sign-ups"). */
  what: string;
}

export function createAddressBudget(options: AddressBudgetOptions, counters: AttemptCounters): AddressBudget {
  const { perWindow, windowSeconds, what } = options;
  if (perWindow <= 0) return { consume: async () => {} };
  const byIp = counters.counter({ keyPrefix: options.keyPrefix, points: perWindow, duration: windowSeconds });
  return {
    async consume(ip) {
      const current = await byIp.get(ip);
      if (current && current.consumedPoints >= perWindow) {
        throw new AppError('RATE_LIMITED', `too many ${what} from this address; try again later`, {
          retryAfterSeconds: Math.max(1, Math.ceil(current.msBeforeNext / 1000)),
        });
      }
      await byIp.penalty(ip, 1);
    },
  };
}
