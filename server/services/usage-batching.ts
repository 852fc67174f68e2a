import type { UsageCounter, UsageStore } from '../ports/usage.js';

/**
 * Counts reads and searches in the process and adds them to the store in batches, while the tenant is
 * far from its plan's limit; near it (or unlimited-but-unknown) every request is counted in the store
 * as before. Why: every search paid a write transaction for its counter (~0.1 ms in the embedded
 * profile), and with `serve --processes N` each such commit by one process made the others' next read
 * start from a reset SQLite page cache.
 *
 * Exactness: within `exactWithin` of a limit the check-and-increment is the store's own, atomic across
 * processes. Further from it a request is admitted against the count this process last saw (refreshed
 * by every flush) plus its own unflushed requests: other processes' traffic since that flush is not
 * seen, so a limit could be passed only if they made more than `exactWithin` requests in that window.
 * A batch is flushed after `maxPending` requests or `flushMs`, before a snapshot of the tenant (so a
 * process reads its own counts), and on close; a crash loses at most the unflushed counts (an
 * undercount, never a refused request that should have passed).
 */
export interface UsageBatchingOptions {
  /** Requests counted in memory before they are written (default 64). */
  maxPending?: number;
  /** Longest time a count stays in memory (default 250 ms). */
  flushMs?: number;
  /** Distance to a limit below which every request is counted in the store (default 1,000). */
  exactWithin?: number;
  /** Told when a background flush fails (its counts are kept and retried). */
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
  /** Writes every pending count. */
  flush(): Promise<void>;
  /** Stops the timer and writes every pending count. */
  close(): Promise<void>;
}

export function batchedUsageStore(inner: UsageStore, options: UsageBatchingOptions = {}): BatchedUsageStore {
  const maxPending = options.maxPending ?? 64;
  const flushMs = options.flushMs ?? 250;
  const exactWithin = options.exactWithin ?? 1000;
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | null = null;

  const keyOf = (tenantId: string, period: string, counter: UsageCounter) => `${tenantId}\u0000${period}\u0000${counter}`;

  async function write(e: Entry): Promise<void> {
    if (e.pending === 0) return;
    const by = e.pending;
    e.pending = 0;
    try {
      e.known = await inner.consume(e.tenantId, e.period, e.counter, null, by);
    } catch (err) {
      e.pending += by; // kept for the next flush
      throw err;
    }
  }

  async function flushAll(): Promise<void> {
    const now = Date.now();
    const failures: unknown[] = [];
    for (const [key, e] of entries) {
      await write(e).catch((err: unknown) => failures.push(err));
      // Idle entries go, so the map holds only tenants in use.
      if (e.pending === 0 && now - e.lastUsed > 60_000) entries.delete(key);
    }
    if (failures.length > 0) throw failures[0];
  }

  function schedule(): void {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      flushAll()
        .catch((err: unknown) => options.onError?.(err))
        .finally(() => {
          if ([...entries.values()].some((e) => e.pending > 0)) schedule();
        });
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
      const far = limit === null || (e.known !== null && e.known + e.pending + by <= limit - exactWithin);
      if (!far) {
        await write(e);
        const value = await inner.consume(tenantId, period, counter, limit, by);
        if (value !== null) e.known = value;
        return value;
      }
      e.pending += by;
      const estimate = (e.known ?? 0) + e.pending;
      if (e.pending >= maxPending) await write(e);
      else schedule();
      return estimate;
    },

    async snapshot(tenantId, period) {
      for (const e of entries.values()) if (e.tenantId === tenantId && e.period === period) await write(e);
      return inner.snapshot(tenantId, period);
    },

    flush: flushAll,

    async close() {
      if (timer) clearTimeout(timer);
      timer = null;
      await flushAll();
    },
  };
}
