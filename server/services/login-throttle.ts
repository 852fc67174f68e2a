import { AppError } from '../errors.js';
import type { AttemptCounter, AttemptCounters } from '../ports/attempt-counters.js';
import { budgetKey } from './address-budget.js';

/**
 * Throttles password guessing. Every attempt RESERVES a point per (email, client address), per email
 * from any address, and per client address before any password is checked, atomically in the store;
 * once any count is past its budget the attempt answers 429 with Retry-After and no password is
 * checked. So concurrent attempts (and the calls of one tRPC batch) each see their own increment: at
 * most the budget of them is ever verified. A failed attempt keeps its points; a success clears the
 * (email, address) count and gives the email-wide and address counts their point back, so only
 * failures spend them. The email-wide budget is the ceiling for guesses spread over many addresses
 * (a botnet against one account, or a stolen session guessing its user's step-up password); it is
 * looser than the per-address one because reaching it also locks the real user out for the window.
 *
 * The counters live where the profile keeps them (its database: every process of `serve --processes N`
 * and every instance counts together).
 */
export interface LoginThrottle {
  /**
   * Reserves one attempt for `key` from `ip`; throws RATE_LIMITED (429, retryAfterSeconds) when the key
   * or address has spent its budget. The attempt stands as a failure unless settled as a success.
   */
  reserve(key: string, ip: string): Promise<LoginAttempt>;
}

/** A reserved attempt: call `succeeded` once the password proved right; a failure needs no call. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
}

export interface ThrottleLimits {
  /** Failed attempts allowed per key (e.g. email) and address within `windowSeconds`. */
  perKeyAndIp: number;
  /** Failed attempts allowed per key from all addresses together within `windowSeconds`. */
  perKey: number;
  /** Failed attempts allowed per address (any key) within `windowSeconds`. */
  perIp: number;
  windowSeconds: number;
}

export const defaultThrottleLimits: ThrottleLimits = { perKeyAndIp: 5, perKey: 30, perIp: 50, windowSeconds: 15 * 60 };

/** A point is given back only this long before its window ends, so it cannot land in the next window. */
const GIVE_BACK_MARGIN_MS = 1_000;

export function createLoginThrottle(limits: ThrottleLimits, counters: AttemptCounters): LoginThrottle {
  const byKeyAndIp = counters.counter({ keyPrefix: 'login_key_ip', points: limits.perKeyAndIp, duration: limits.windowSeconds });
  const byKey = counters.counter({ keyPrefix: 'login_key', points: limits.perKey, duration: limits.windowSeconds });
  const byIp = counters.counter({ keyPrefix: 'login_ip', points: limits.perIp, duration: limits.windowSeconds });
  // Addresses are keyed as the address budgets key them (an IPv6 /64 is one address).
  const pair = (key: string, ip: string) => `${key}\u0000${budgetKey(ip)}`;

  // Date.now(), not the service clock: the store's windows are timed by it (rate-limiter-flexible).
  // A give-back landing in a fresh window would credit an attempt that window never counted.
  async function giveBack(counter: AttemptCounter, key: string, reservedAt: number, msBeforeNext: number) {
    if (Date.now() < reservedAt + msBeforeNext - GIVE_BACK_MARGIN_MS) await counter.reward(key, 1);
  }

  return {
    async reserve(key, ip) {
      const keyAndIp = pair(key, ip);
      const address = budgetKey(ip);
      const reservedAt = Date.now();
      const [k, a, i] = await Promise.all([byKeyAndIp.penalty(keyAndIp, 1), byKey.penalty(key, 1), byIp.penalty(address, 1)]);
      const keySpent = k.consumedPoints > limits.perKeyAndIp;
      const anywhereSpent = a.consumedPoints > limits.perKey;
      const ipSpent = i.consumedPoints > limits.perIp;
      if (keySpent || anywhereSpent || ipSpent) {
        // A refused attempt is charged only to the budget that refused it.
        if (!keySpent) await giveBack(byKeyAndIp, keyAndIp, reservedAt, k.msBeforeNext);
        if (!anywhereSpent) await giveBack(byKey, key, reservedAt, a.msBeforeNext);
        if (!ipSpent) await giveBack(byIp, address, reservedAt, i.msBeforeNext);
        const waitMs = Math.max(keySpent ? k.msBeforeNext : 0, anywhereSpent ? a.msBeforeNext : 0, ipSpent ? i.msBeforeNext : 0);
        throw new AppError('RATE_LIMITED', 'too many failed sign-in attempts; try again later', {
          retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
        });
      }
      return {
        async succeeded() {
          await byKeyAndIp.delete(keyAndIp);
          await giveBack(byKey, key, reservedAt, a.msBeforeNext);
          await giveBack(byIp, address, reservedAt, i.msBeforeNext);
        },
      };
    },
  };
}
