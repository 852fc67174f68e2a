import { describe, expect, it } from 'vitest';
import { nextPeriodStart, secondsToPeriodEnd, usagePeriod } from '../../server/services/usage.js';

describe('usage periods', () => {
  it('is the UTC calendar month, also across month and year boundaries asked in any order', () => {
    const lastMsOfJanuary = Date.UTC(2026, 0, 31, 23, 59, 59, 999);
    const firstMsOfFebruary = Date.UTC(2026, 1, 1);
    // Alternating between months must not serve one month's remembered answer for the other.
    expect(usagePeriod(lastMsOfJanuary)).toBe('2026-01');
    expect(usagePeriod(firstMsOfFebruary)).toBe('2026-02');
    expect(usagePeriod(lastMsOfJanuary)).toBe('2026-01');
    expect(usagePeriod(Date.UTC(2025, 11, 31, 23, 59, 59, 999))).toBe('2025-12');
    expect(usagePeriod(Date.UTC(2026, 0, 1))).toBe('2026-01');
    expect(usagePeriod(Date.UTC(2026, 0, 15))).toBe('2026-01');
  });

  it('ends at the next month start', () => {
    expect(nextPeriodStart(Date.UTC(2026, 11, 5))).toBe(Date.UTC(2027, 0, 1));
    expect(secondsToPeriodEnd(Date.UTC(2027, 0, 1) - 1500)).toBe(2);
    expect(secondsToPeriodEnd(Date.UTC(2027, 0, 1))).toBeGreaterThan(0);
  });
});
