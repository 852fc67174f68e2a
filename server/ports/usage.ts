/**
 * Storage port of per-tenant usage: counters per period (calendar month, `YYYY-MM`, UTC) and the
 * running totals of live memories and their bytes. Writes are counted by the write queue inside the
 * enqueue transaction and totals move with every memory change; reads and searches are counted here.
 */

export type UsageCounter = 'reads' | 'searches';

export interface UsageSnapshot {
  period: string;
  writes: number;
  reads: number;
  searches: number;
  /** Live memories (merged duplicates and deleted memories do not count). */
  memoryCount: number;
  storageBytes: number;
  /** Accepted writes not yet consolidated. */
  pendingWrites: number;
}

/** One UTC day's counters (`day`: `YYYY-MM-DD`). */
export interface UsageDay {
  day: string;
  writes: number;
  reads: number;
  searches: number;
}

export interface UsageStore {
  /**
   * Adds `by` to the tenant's counter for the period unless the result would exceed `limit`
   * (null = unlimited). Atomic check-and-increment: the counter's new value when counted, null when not.
   */
  consume(tenantId: string, period: string, counter: UsageCounter, limit: number | null, by?: number): Promise<number | null>;
  snapshot(tenantId: string, period: string): Promise<UsageSnapshot>;
  /**
   * The tenant's per-day counters from `fromDay` to `toDay` (inclusive, `YYYY-MM-DD`, UTC), oldest first;
   * days without any counted request are left out. Kept by the same paths that count the period.
   */
  days(tenantId: string, fromDay: string, toDay: string): Promise<UsageDay[]>;
  /**
   * What can be counted per namespace, for a key restricted to some: the live memories (as
   * `memoryCount` counts them) and their bytes, and the accepted writes not yet consolidated, in
   * those namespaces only. Read from the memories and queued writes themselves (a scan of the
   * tenant's rows in those namespaces), not from the tenant-wide totals.
   */
  namespaceTotals(
    tenantId: string,
    namespaces: readonly string[],
  ): Promise<Pick<UsageSnapshot, 'memoryCount' | 'storageBytes' | 'pendingWrites'>>;
}
