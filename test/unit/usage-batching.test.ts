import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openEmbeddedDatabase, openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedUsageStore } from '../../adapters/embedded/usage-store.js';
import type { UsageStore } from '../../server/ports/usage.js';
import { batchedUsageStore } from '../../server/services/usage-batching.js';

const PERIOD = '2026-11';

/** Consumes `n` one at a time; how many were counted. */
async function consumeMany(store: Pick<UsageStore, 'consume'>, tenant: string, n: number, limit: number | null): Promise<number> {
  let counted = 0;
  for (let i = 0; i < n; i++) if ((await store.consume(tenant, PERIOD, 'searches', limit)) !== null) counted++;
  return counted;
}

describe('batched usage counts', () => {
  it('counts unlimited requests in batches, and a snapshot or close writes what is pending', async () => {
    const inner = createEmbeddedUsageStore(openInMemoryDatabase());
    const store = batchedUsageStore(inner, { maxPending: 50, flushMs: 60_000 });
    expect(await consumeMany(store, 't1', 120, null)).toBe(120);
    // Two batches of 50 are written; 20 wait in memory.
    expect((await inner.snapshot('t1', PERIOD)).searches).toBe(100);
    expect((await store.snapshot('t1', PERIOD)).searches).toBe(120);
    await consumeMany(store, 't1', 7, null);
    await store.consume('t2', PERIOD, 'reads', null);
    await store.close();
    expect((await inner.snapshot('t1', PERIOD)).searches).toBe(127);
    expect((await inner.snapshot('t2', PERIOD)).reads).toBe(1);
  });

  it('writes pending counts after flushMs without further requests', async () => {
    const inner = createEmbeddedUsageStore(openInMemoryDatabase());
    const store = batchedUsageStore(inner, { maxPending: 1000, flushMs: 10 });
    await consumeMany(store, 't', 5, null);
    await vi.waitFor(async () => expect((await inner.snapshot('t', PERIOD)).searches).toBe(5), { timeout: 5000, interval: 20 });
    await store.close();
  });

  it('admits exactly the limit: every request is checked in the store within exactWithin of it', async () => {
    const inner = createEmbeddedUsageStore(openInMemoryDatabase());
    const small = batchedUsageStore(inner, { exactWithin: 1000 });
    expect(await consumeMany(small, 'a', 15, 10)).toBe(10);
    expect((await inner.snapshot('a', PERIOD)).searches).toBe(10);
    // Far from a limit of 3,000 requests are batched, the last 1,000 checked one by one.
    const far = batchedUsageStore(inner, { exactWithin: 1000, maxPending: 64, flushMs: 60_000 });
    expect(await consumeMany(far, 'b', 1000, 3000)).toBe(1000);
    // Far from the limit the store lags by the unflushed batch: the requests were not each a write.
    expect((await inner.snapshot('b', PERIOD)).searches).toBeLessThan(1000);
    expect(await consumeMany(far, 'b', 2500, 3000)).toBe(2000);
    await far.close();
    expect((await inner.snapshot('b', PERIOD)).searches).toBe(3000);
    await small.close();
  });

  it('keeps two processes on one database within the limit', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'usage-batching-'));
    const dbA = openEmbeddedDatabase(dir);
    const dbB = openEmbeddedDatabase(dir);
    const innerA = createEmbeddedUsageStore(dbA);
    const innerB = createEmbeddedUsageStore(dbB);
    const a = batchedUsageStore(innerA, { exactWithin: 500, maxPending: 32, flushMs: 60_000 });
    const b = batchedUsageStore(innerB, { exactWithin: 500, maxPending: 32, flushMs: 60_000 });
    let counted = 0;
    for (let i = 0; i < 1500; i++) {
      if ((await a.consume('t', PERIOD, 'searches', 2000)) !== null) counted++;
      if ((await b.consume('t', PERIOD, 'searches', 2000)) !== null) counted++;
    }
    await a.close();
    await b.close();
    expect(counted).toBe(2000);
    expect((await innerA.snapshot('t', PERIOD)).searches).toBe(2000);
    dbA.close();
    dbB.close();
  });
});
