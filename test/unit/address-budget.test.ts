import { describe, expect, it } from 'vitest';
import { createEmbeddedAttemptCounters } from '../../adapters/embedded/attempt-counters.js';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { budgetKey, createAddressBudget } from '../../server/services/address-budget.js';

describe('address budgets', () => {
  it('count concurrent requests exactly: of 100 at once with a budget of 20, 20 pass', async () => {
    const db = openInMemoryDatabase();
    const budget = createAddressBudget(
      { keyPrefix: 'test', perWindow: 20, windowSeconds: 60, what: 'tests' },
      createEmbeddedAttemptCounters(db),
    );
    const outcomes = await Promise.allSettled(Array.from({ length: 100 }, () => budget.consume('203.0.113.7')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(20);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused).toHaveLength(80);
    expect(refused[0]!.reason).toMatchObject({ code: 'RATE_LIMITED' });
    // Another address has its own budget.
    await expect(budget.consume('198.51.100.9')).resolves.toBeUndefined();
    db.close();
  });

  it('key IPv4 by address, IPv6 by /64, IPv4-mapped IPv6 as IPv4, and put what does not parse together', () => {
    expect(budgetKey('203.0.113.7')).toBe('203.0.113.7');
    expect(budgetKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(budgetKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(budgetKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(budgetKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(budgetKey('unknown')).toBe('unparsed');
    expect(budgetKey('')).toBe('unparsed');
  });

  it('is off at 0', async () => {
    const db = openInMemoryDatabase();
    const budget = createAddressBudget(
      { keyPrefix: 'test', perWindow: 0, windowSeconds: 60, what: 'tests' },
      createEmbeddedAttemptCounters(db),
    );
    for (let i = 0; i < 50; i++) await budget.consume('203.0.113.7');
    db.close();
  });
});
