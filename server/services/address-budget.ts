import type ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';
import type { AttemptCounters } from '../ports/attempt-counters.js';
import { parseClientIp } from './ip-allowlist.js';

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
 * The key a client address is counted under, by every per-address count (these budgets and the
 * per-address sign-in throttle): an IPv4 address, or an IPv6 /64 (the block one subscriber gets:
 * counting single IPv6 addresses would give anyone with a /64 an unlimited budget). The address is
 * parsed as the allowlists parse it (`parseClientIp`: IPv4-mapped IPv6 is IPv4, a zone id is dropped);
 * what does not parse (or no address at all) shares one key.
 */
export function budgetKey(ip: string): string {
  const address = parseClientIp(ip);
  if (!address) return 'unparsed';
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
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
  const budget = createKeyedBudget({ ...options, what: `${options.what} from this address` }, counters);
  return { consume: (ip) => budget.consume(budgetKey(ip)) };
}

/** A budget per any key (a user, a tenant), counted like the address budgets; `consume(key)` throws 429 past it. */
export interface KeyedBudget {
  consume(key: string): Promise<void>;
}

export function createKeyedBudget(options: AddressBudgetOptions, counters: AttemptCounters): KeyedBudget {
  const { perWindow, windowSeconds, what } = options;
  if (perWindow <= 0) return { consume: async () => {} };
  const byKey = counters.counter({ keyPrefix: options.keyPrefix, points: perWindow, duration: windowSeconds });
  return {
    async consume(key) {
      // Count first, then judge the count: concurrent requests each see their own increment.
      const counted = await byKey.penalty(key, 1);
      if (counted.consumedPoints > perWindow) {
        throw new AppError('RATE_LIMITED', `too many ${what}; try again later`, {
          retryAfterSeconds: Math.max(1, Math.ceil(counted.msBeforeNext / 1000)),
        });
      }
    },
  };
}
