import type { UsageCounter, UsageStore } from '../ports/usage.js';

/**
 * Counts reads and searches in the process and adds them to the store in batches while the tenant is
 * unlimited or far from its plan's limit; near it, and before this process has seen the count, every
 * request is counted in the store as before. Why: every search paid a write transaction for its counter,
 * and with `serve --processes N` each such commit by one process made the others' next read start from a
 * reset SQLite page cache (figures: docs/performance.md#usage-counted-in-batches).
 *
 * Exactness: within `exactWithin` of a limit the check-and-increment is the store's own, atomic across
 * processes. Further from it a request is admitted against the count this process last saw (refreshed
 * by every flush) plus its own unflushed requests: other processes' traffic since that flush is not
 * seen, so a limit could be passed only if they made more than `exactWithin` requests in that window.
 * A batch is flushed after `maxPending` requests or `flushMs`, before a snapshot of the tenant (so a
 * process reads its own counts; another process's are up to `flushMs` or `maxPending` behind), and on
 * close; a crash loses at most the unflushed counts (an undercount, never a refused request that should
 * have passed). A counted request is answered with this process's estimate of the counter.
 */
export interface UsageBatchingOptions {
  /** Requests counted in memory before they are written (default 64). */
  maxPending?: number;
  /** Longest time a count stays in memory (default 250 ms). */
  flushMs?: number;
  /** Distance to a limit below which every request is counted in the store (default 1,000). */
  exactWithin?: number;
  /** Told when a flush fails (its counts are kept and retried on the next one). */
  onError?: (err: unknown) => void;
}

interface Entry {
  tenantId: string;
  period: string;
  counter: UsageCounter;
  pending: number;
  /** The store's value at this process's last write, or null before the first. */
  known: number | null;
  lastUsed: number;
}

export interface BatchedUsageStore extends UsageStore {
  /** Stops the timer and writes every pending count. */
  close(): Promise<void>;
}

export function batchedUsageStore(inner: UsageStore, options: UsageBatchingOptions = {}): BatchedUsageStore {
  const maxPending = options.maxPending ?? 64;
  const flushMs = options.flushMs ?? 250;
  const exactWithin = options.exactWithin ?? 1000;
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  /** The background flush under way, if any (close waits for it). */
  let flushing: Promise<void> = Promise.resolve();

  const keyOf = (tenantId: string, period: string, counter: UsageCounter) => `${tenantId}\u0000${period}\u0000${counter}`;
  const report = (err: unknown) => options.onError?.(err);

  /** Adds an entry's pending count to the store; on failure the count is kept for the next flush. */
  async function write(e: Entry): Promise<void> {
    if (e.pending === 0) return;
    const by = e.pending;
    e.pending = 0;
    try {
      const value = await inner.consume(e.tenantId, e.period, e.counter, null, by);
      // Writes can finish out of order; the count only grows.
      e.known = Math.max(e.known ?? 0, value ?? 0);
    } catch (err) {
      e.pending += by;
      schedule();
      throw err;
    }
  }

  /** Writes every pending count; failures are reported, not thrown (their counts stay pending). */
  async function flushAll(): Promise<void> {
    const now = Date.now();
    for (const [key, e] of entries) {
      await write(e).catch(report);
      // Idle entries go, so the map holds only tenants in use.
      if (e.pending === 0 && now - e.lastUsed > 60_000) entries.delete(key);
    }
  }

  function schedule(): void {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = null;
      flushing = flushing.then(flushAll);
    }, flushMs);
    timer.unref();
  }

  return {
    async consume(tenantId, period, counter, limit, by = 1) {
      const key = keyOf(tenantId, period, counter);
      let e = entries.get(key);
      if (!e) {
        e = { tenantId, period, counter, pending: 0, known: null, lastUsed: 0 };
        entries.set(key, e);
      }
      e.lastUsed = Date.now();
      const far = !closed && (limit === null || (e.known !== null && e.known + e.pending + by <= limit - exactWithin));
      if (!far) {
        await write(e);
        const value = await inner.consume(tenantId, period, counter, limit, by);
        if (value !== null) e.known = Math.max(e.known ?? 0, value);
        return value;
      }
      // Counted in memory: the value returned is this process's estimate of the counter.
      e.pending += by;
      const estimate = (e.known ?? 0) + e.pending;
      if (e.pending >= maxPending) await write(e).catch(report);
      else schedule();
      return estimate;
    },

    async snapshot(tenantId, period) {
      for (const e of entries.values()) if (e.tenantId === tenantId && e.period === period) await write(e);
      return inner.snapshot(tenantId, period);
    },

    async days(tenantId, fromDay, toDay) {
      // A process's own pending counts are written first, as for a snapshot.
      for (const e of entries.values()) if (e.tenantId === tenantId) await write(e);
      return inner.days(tenantId, fromDay, toDay);
    },

    // Totals of memories and queued writes, never batched here: nothing to write first.
    namespaceTotals: (tenantId, namespaces) => inner.namespaceTotals(tenantId, namespaces),

    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await flushing;
      await flushAll();
    },
  };
}
