import ipaddr from 'ipaddr.js';
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

/**
 * What one budget covers: an IPv4 address, or an IPv6 /64 (the block one subscriber gets: counting
 * single IPv6 addresses would give anyone with a /64 an unlimited budget). IPv4-mapped IPv6 counts as
 * its IPv4 address; what does not parse (or no address at all) shares one budget.
 */
export function budgetKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return 'unparsed';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

export interface AddressBudgetOptions {
  /** Keeps this budget's counts apart from others in the store. */
  keyPrefix: string;
  /** Requests (attempts, whatever their outcome) allowed per address within the window; 0: no budget. */
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
      // Count first, then judge the count: concurrent requests each see their own increment.
      const counted = await byIp.penalty(budgetKey(ip), 1);
      if (counted.consumedPoints > perWindow) {
        throw new AppError('RATE_LIMITED', `too many ${what} from this address; try again later`, {
          retryAfterSeconds: Math.max(1, Math.ceil(counted.msBeforeNext / 1000)),
        });
      }
    },
  };
}
