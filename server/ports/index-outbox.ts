/**
 * The search index outbox of a profile whose index lives outside the memory store's transactions
 * (server profile: MongoDB + Qdrant). A commit records its index work in the outbox in the same
 * transaction and applies it right after; what could not be applied then (the index was down, an
 * entry failed) stays in the outbox, and the recurring drain job applies it through this port.
 *
 * An entry that keeps failing while the index serves others is set aside ("poisoned"): kept, never
 * retried on its own, and no longer holding up its tenant's later entries; `retryPoisoned` puts such
 * entries back. The embedded profile writes index rows in the commit's own transaction and has none.
 */
export interface IndexOutboxCounts {
  /** Entries waiting to be applied (including ones that failed and will be retried). */
  pending: number;
  /** Entries set aside after repeated failures. */
  poisoned: number;
}

export interface OutboxDrainReport {
  applied: number;
  /** Entries with nothing left to do (a later commit superseded them). */
  dropped: number;
  /** Failed attempts; those entries stay pending, or were set aside. */
  failed: number;
  /** Entries set aside by this drain. */
  poisoned: number;
  /** The index was unreachable: the drain stopped and left everything in place. */
  outage: boolean;
  /** Another process was draining the tenant (it applies what this drain would have). */
  busy: boolean;
  /** The budget ran out mid-drain: the rest of the tenant's entries wait for the next run. */
  timedOut: boolean;
}

export interface IndexOutbox {
  /** Up to `limit` tenants with pending entries (one index key per tenant, not a scan of the entries). */
  tenantsWithPending(limit: number): Promise<string[]>;
  /**
   * Applies the tenant's pending entries, retrying the ones that failed before; starts no index request
   * once `budgetMs` has passed (none: no limit).
   */
  drain(tenantId: string, options?: { budgetMs?: number }): Promise<OutboxDrainReport>;
  counts(): Promise<IndexOutboxCounts>;
  /** Puts set-aside entries (of one tenant, or all) back in the outbox with no attempts; returns their tenants. */
  retryPoisoned(tenantId: string | null): Promise<{ entries: number; tenants: string[] }>;
  /**
   * Deletes every entry, pending and set aside (`tenant-memory reindex`, which rebuilds every row from
   * the memory store: entries from before it hold the old model's vectors).
   */
  clear(): Promise<number>;
}
