/**
 * Per-tenant drain lanes: drains of one tenant run one after another in this process, a call made
 * while one runs shares a single follow-up drain, and every pending call hears of each batch's progress.
 */
import type { Clock } from '../clock.js';
import type { ConsolidationTrigger } from './consolidation-trigger.js';

export interface DrainResult {
  applied: number;
  batches: number;
  /** Queued writes remain: the budget ran out or `shouldStop` said so. */
  remaining: boolean;
}

export interface DrainOptions {
  /** Stop after this many milliseconds (checked between batches). Default: until empty. */
  budgetMs?: number;
  /** Stop early when this returns true (checked between batches). */
  shouldStop?: () => boolean;
  /**
   * Called after every batch this process commits for the tenant while the call is pending, including
   * while it waits behind another drain of the tenant or shares a follow-up drain (e.g. to renew a job
   * lock: a job waiting for its turn is alive as long as the tenant's drains make progress).
   */
  onProgress?: () => Promise<void> | void;
}

export interface DrainLaneDeps {
  /** One batch of the tenant (one transaction); how many writes it applied. */
  consolidateBatch(tenantId: string): Promise<{ applied: number }>;
  clock: Clock;
  consolidationTrigger?: Pick<ConsolidationTrigger, 'drainStarted' | 'drainEnded'> | undefined;
}

/** `ConsolidationService.drainTenant` and `followUpQueued` (documented there). */
export interface DrainLanes {
  drainTenant(tenantId: string, options?: DrainOptions): Promise<DrainResult>;
  followUpQueued(tenantId: string): boolean;
}

export function createDrainLanes(deps: DrainLaneDeps): DrainLanes {
  /**
   * Per tenant: the tail of the drains chained in this process, the follow-up not yet started, and the
   * progress callbacks of every call pending on the lane.
   */
  interface Lane {
    tail: Promise<void>;
    next: Promise<DrainResult> | null;
    progress: Set<() => Promise<void> | void>;
  }
  const lanes = new Map<string, Lane>();

  async function drain(tenantId: string, options: DrainOptions, lane: Lane): Promise<DrainResult> {
    const started = deps.clock();
    let applied = 0;
    let batches = 0;
    for (;;) {
      deps.consolidationTrigger?.drainStarted(tenantId);
      const r = await deps.consolidateBatch(tenantId);
      applied += r.applied;
      if (r.applied > 0) batches++;
      // A failing callback is its caller's business (the job logs a failed lock renewal), not this drain's.
      if (r.applied > 0)
        await Promise.all(
          [...lane.progress].map((p) =>
            Promise.resolve()
              .then(p)
              .catch(() => undefined),
          ),
        );
      if (r.applied === 0) return { applied, batches, remaining: false };
      if (options.shouldStop?.() || (options.budgetMs !== undefined && deps.clock() - started >= options.budgetMs)) {
        return { applied, batches, remaining: true };
      }
      // Let the event loop serve requests between batches (inline workers share the HTTP process).
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  return {
    drainTenant(tenantId, options = {}) {
      let lane = lanes.get(tenantId);
      if (!lane) {
        lane = { tail: Promise.resolve(), next: null, progress: new Set() };
        lanes.set(tenantId, lane);
      }
      const l = lane;
      const progress = options.onProgress;
      const pending = (result: Promise<DrainResult>) => {
        if (!progress) return result;
        l.progress.add(progress);
        return result.finally(() => l.progress.delete(progress));
      };
      if (l.next) return pending(l.next);
      const run = l.tail.then(() => {
        l.next = null;
        return drain(tenantId, options, l).finally(() => deps.consolidationTrigger?.drainEnded(tenantId));
      });
      l.next = run;
      const tail = run.then(
        () => undefined,
        () => undefined,
      );
      l.tail = tail;
      void tail.then(() => {
        if (l.tail === tail) lanes.delete(tenantId);
      });
      return pending(run);
    },
    followUpQueued: (tenantId) => lanes.get(tenantId)?.next != null,
  };
}
