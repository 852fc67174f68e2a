import type { Logger } from '../../logger.js';
import type { IndexOutbox, IndexOutboxCounts, OutboxDrainReport } from '../../ports/index-outbox.js';
import type { Clock } from '../clock.js';

export interface OutboxDrainSummary {
  /** Tenants whose entries this run drained. */
  tenants: number;
  applied: number;
  failed: number;
  poisoned: number;
  /** The index was unreachable: the run stopped at the first tenant that found it so. */
  outage: boolean;
  /** The run stopped at its budget (or was asked to) with tenants left for the next one. */
  remaining: boolean;
}

export interface IndexOutboxService {
  /** False where the profile has no outbox (embedded: index rows commit with the memory). */
  readonly enabled: boolean;
  /** The recurring drain: every tenant with pending entries, until the budget is spent or the index is down. */
  drainPending(options: { budgetMs: number; onProgress?: () => void; shouldStop?: () => boolean }): Promise<OutboxDrainSummary>;
  /** Pending and set-aside entries (for `/readyz` and `/metrics`); null without an outbox. */
  counts(): Promise<IndexOutboxCounts | null>;
  /** `tenant-memory outbox retry`: puts set-aside entries back, then drains their tenants at once. */
  retryPoisoned(tenantId: string | null): Promise<{ entries: number; drain: OutboxDrainSummary }>;
  /** `tenant-memory reindex`: forgets every entry, since the rebuild writes every memory's rows anew. */
  clearForReindex(): Promise<number>;
}

export interface IndexOutboxDeps {
  outbox: IndexOutbox | null;
  logger: Pick<Logger, 'warn'>;
  clock: Clock;
}

/** The outbox's line in `/readyz`: `ok`, or how many entries wait and how many were set aside. */
export function outboxReadiness(counts: IndexOutboxCounts | null): string {
  if (!counts || (counts.pending === 0 && counts.poisoned === 0)) return 'ok';
  const parts = [`${counts.pending} pending`];
  if (counts.poisoned > 0) parts.push(`${counts.poisoned} set aside after repeated failures (tenant-memory outbox retry)`);
  return parts.join(', ');
}

/** Tenants one run looks at; the rest wait for the next run (entries of a tenant are drained whole). */
const TENANTS_PER_RUN = 10_000;

const emptySummary = (): OutboxDrainSummary => ({ tenants: 0, applied: 0, failed: 0, poisoned: 0, outage: false, remaining: false });

/** The search index outbox as the drain job, the health check and the operator see it. */
export function createIndexOutboxService(deps: IndexOutboxDeps): IndexOutboxService {
  const { outbox, logger, clock } = deps;

  async function drainTenants(
    tenants: readonly string[],
    options: { budgetMs: number; onProgress?: () => void; shouldStop?: () => boolean },
  ): Promise<OutboxDrainSummary> {
    const summary = emptySummary();
    if (!outbox) return summary;
    const started = clock();
    for (const tenantId of tenants) {
      if (options.shouldStop?.() || clock() - started >= options.budgetMs) {
        summary.remaining = true;
        break;
      }
      let r: OutboxDrainReport;
      try {
        // The tenant gets what is left of the run's budget: one large backlog cannot outlive the job's lock.
        r = await outbox.drain(tenantId, { budgetMs: options.budgetMs - (clock() - started) });
      } catch (err) {
        // The memory store failed (the index's failures are in the report): the next tenant may fare better.
        logger.warn({ tenantId, err: err instanceof Error ? err.message : String(err) }, 'search index outbox drain failed');
        continue;
      } finally {
        options.onProgress?.();
      }
      if (!r.busy) summary.tenants++;
      summary.applied += r.applied;
      summary.failed += r.failed;
      summary.poisoned += r.poisoned;
      if (r.outage) {
        // Every other tenant would wait out the same timeouts: the next run tries again.
        summary.outage = true;
        summary.remaining = true;
        break;
      }
      if (r.timedOut) {
        summary.remaining = true;
        break;
      }
    }
    return summary;
  }

  return {
    enabled: outbox !== null,

    async drainPending(options) {
      if (!outbox) return emptySummary();
      return drainTenants(await outbox.tenantsWithPending(TENANTS_PER_RUN), options);
    },

    async counts() {
      return outbox ? outbox.counts() : null;
    },

    async retryPoisoned(tenantId) {
      if (!outbox) return { entries: 0, drain: emptySummary() };
      const { entries, tenants } = await outbox.retryPoisoned(tenantId);
      return { entries, drain: await drainTenants(tenants, { budgetMs: Number.POSITIVE_INFINITY }) };
    },

    async clearForReindex() {
      return outbox ? outbox.clear() : 0;
    },
  };
}
