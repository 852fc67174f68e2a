import { AppError } from '../errors.js';
import type { AttemptCounters } from '../ports/attempt-counters.js';
import { budgetKey } from './address-budget.js';

/**
 * Throttles password guessing. Failures are counted per (email, client address) and per client
 * address; once either budget is spent, attempts answer 429 with Retry-After until the window passes,
 * before any password is checked. A success clears the (email, address) count.
 *
 * The counters live where the profile keeps them (its database: every process of `serve --processes N`
 * and every instance counts together).
 */
export interface LoginThrottle {
  /** Throws RATE_LIMITED (429, retryAfterSeconds) when the key or address is locked out. */
  check(key: string, ip: string): Promise<void>;
  failed(key: string, ip: string): Promise<void>;
  succeeded(key: string, ip: string): Promise<void>;
}

export interface ThrottleLimits {
  /** Failures allowed per key (e.g. email) and address within `windowSeconds`. */
  perKeyAndIp: number;
  /** Failures allowed per address (any key) within `windowSeconds`. */
  perIp: number;
  windowSeconds: number;
}

export const defaultThrottleLimits: ThrottleLimits = { perKeyAndIp: 5, perIp: 50, windowSeconds: 15 * 60 };

export function createLoginThrottle(limits: ThrottleLimits, counters: AttemptCounters): LoginThrottle {
  const byKeyAndIp = counters.counter({ keyPrefix: 'login_key_ip', points: limits.perKeyAndIp, duration: limits.windowSeconds });
  const byIp = counters.counter({ keyPrefix: 'login_ip', points: limits.perIp, duration: limits.windowSeconds });
  // Addresses are keyed as the address budgets key them (an IPv6 /64 is one address).
  const pair = (key: string, ip: string) => `${key}\u0000${budgetKey(ip)}`;

  return {
    async check(key, ip) {
      const [k, i] = await Promise.all([byKeyAndIp.get(pair(key, ip)), byIp.get(budgetKey(ip))]);
      let waitMs = 0;
      if (k && k.consumedPoints >= limits.perKeyAndIp) waitMs = Math.max(waitMs, k.msBeforeNext);
      if (i && i.consumedPoints >= limits.perIp) waitMs = Math.max(waitMs, i.msBeforeNext);
      if (waitMs > 0) {
        throw new AppError('RATE_LIMITED', 'too many failed sign-in attempts; try again later', {
          retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
        });
      }
    },
    async failed(key, ip) {
      await Promise.all([byKeyAndIp.penalty(pair(key, ip), 1), byIp.penalty(budgetKey(ip), 1)]);
    },
    async succeeded(key, ip) {
      await byKeyAndIp.delete(pair(key, ip));
    },
  };
}
