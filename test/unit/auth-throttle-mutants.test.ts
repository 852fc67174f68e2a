import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppError } from '../../server/errors.js';
import { createLoginThrottle, type LoginAttempt, type ThrottleLimits } from '../../server/services/login-throttle.js';
import { createInProcessAttemptCounters } from '../support/in-process-attempt-counters.js';

/**
 * The login throttle at the edges its mutation run left open: which budget a refused attempt is charged
 * to when a pending reservation later succeeds, the give-back margin at the end of a window, and the
 * Retry-After a lockout announces. The counters' windows are timed by Date.now, so only Date is faked.
 */
const WINDOW_S = 60;
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);

const throttle = (limits: Partial<ThrottleLimits>) =>
  createLoginThrottle(
    { perKeyAndIp: 1_000, perKey: 1_000, perIp: 1_000, windowSeconds: WINDOW_S, ...limits },
    createInProcessAttemptCounters(),
  );

/** 'ok', or the refusal's code and Retry-After in seconds. */
const outcome = async (p: Promise<LoginAttempt>) =>
  p.then(
    () => 'ok',
    (e: AppError) => `${e.code}:${String(e.details?.retryAfterSeconds)}`,
  );
const refused = (o: string) => o.startsWith('RATE_LIMITED:');
const at = (ms: number) => vi.setSystemTime(T0 + ms);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  at(0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a refused attempt stays charged to the budget that refused it', () => {
  // Each case holds reservations pending, lets the refusal happen, then settles them as successes:
  // their give-backs bring a budget back under its ceiling only if the refusal was charged wrongly.

  it('per address: a spent address keeps the refused point after pending successes give theirs back', async () => {
    const t = throttle({ perIp: 2 });
    const pending = await t.reserve('a@x', '7.7.7.7');
    await t.reserve('b@x', '7.7.7.7');
    expect(refused(await outcome(t.reserve('c@x', '7.7.7.7')))).toBe(true);
    await pending.succeeded();
    // 3 charged, 1 given back: still past 2.
    expect(refused(await outcome(t.reserve('d@x', '7.7.7.7')))).toBe(true);
  });

  it('per email from every address: a spent email keeps the refused point', async () => {
    const t = throttle({ perKey: 2 });
    const pending = await t.reserve('a@x', '10.0.0.1');
    await t.reserve('a@x', '10.0.0.2');
    expect(refused(await outcome(t.reserve('a@x', '10.0.0.3')))).toBe(true);
    await pending.succeeded();
    expect(refused(await outcome(t.reserve('a@x', '10.0.0.4')))).toBe(true);
  });

  it('the email-wide count gets its point back when only the pair refused', async () => {
    const t = throttle({ perKeyAndIp: 1, perKey: 2 });
    await t.reserve('a@x', '10.0.0.1');
    expect(refused(await outcome(t.reserve('a@x', '10.0.0.1')))).toBe(true);
    // Charged 2 without the give-back: the email would now be refused from every address.
    expect(await outcome(t.reserve('a@x', '10.0.0.2'))).toBe('ok');
    expect(refused(await outcome(t.reserve('a@x', '10.0.0.3')))).toBe(true);
  });

  it('the pair gets its point back when only the email-wide count refused', async () => {
    const t = throttle({ perKeyAndIp: 2, perKey: 3 });
    const first = await t.reserve('a@x', '10.0.0.2');
    const second = await t.reserve('a@x', '10.0.0.3');
    await t.reserve('a@x', '10.0.0.1');
    expect(refused(await outcome(t.reserve('a@x', '10.0.0.1')))).toBe(true);
    await first.succeeded();
    await second.succeeded();
    // The email-wide count is back to 1 of 3; the pair (a@x, 10.0.0.1) must hold 1 of 2, not 2.
    expect(await outcome(t.reserve('a@x', '10.0.0.1'))).toBe('ok');
    expect(refused(await outcome(t.reserve('a@x', '10.0.0.1')))).toBe(true);
  });
});

describe('a success gives its point back only inside the window it was charged in', () => {
  async function spendThenSucceedAt(msAfterReserving: number) {
    const t = throttle({ perKey: 2 });
    const pending = await t.reserve('a@x', '10.0.0.1');
    await t.reserve('a@x', '10.0.0.2');
    at(msAfterReserving);
    await pending.succeeded();
    return outcome(t.reserve('a@x', '10.0.0.3'));
  }

  it('gives it back up to a second before the window ends', async () => {
    expect(await spendThenSucceedAt(WINDOW_S * 1000 - 1_001)).toBe('ok');
  });

  it('keeps it from a second before the window ends, so it cannot land in the next window', async () => {
    // Exactly at the margin, and inside it: the email stays at 2 of 2 and the third attempt is refused.
    expect(refused(await spendThenSucceedAt(WINDOW_S * 1000 - 1_000))).toBe(true);
    at(0);
    expect(refused(await spendThenSucceedAt(WINDOW_S * 1000 - 500))).toBe(true);
  });
});

describe('Retry-After of a lockout', () => {
  it('is the time left in the refusing window, in whole seconds rounded up', async () => {
    const t = throttle({ perKeyAndIp: 1 });
    await t.reserve('a@x', '10.0.0.1');
    at(20_500);
    expect(await outcome(t.reserve('a@x', '10.0.0.1'))).toBe('RATE_LIMITED:40');
  });

  it('is the longest wait when several budgets refuse', async () => {
    const t = throttle({ perIp: 2, perKeyAndIp: 1 });
    await t.reserve('b@x', '10.0.0.1'); // the address window starts at 0
    at(30_000);
    await t.reserve('a@x', '10.0.0.1'); // the pair window starts at 30 s
    // Both spent: the address frees at 60 s, the pair at 90 s.
    expect(await outcome(t.reserve('a@x', '10.0.0.1'))).toBe('RATE_LIMITED:60');
  });

  it('is at least one second in the last moments of a window', async () => {
    const t = throttle({ perKeyAndIp: 1 });
    await t.reserve('a@x', '10.0.0.1');
    at(WINDOW_S * 1000 - 1);
    expect(await outcome(t.reserve('a@x', '10.0.0.1'))).toBe('RATE_LIMITED:1');
  });
});
