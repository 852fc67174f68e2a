/**
 * Consolidation of queued memory writes as Agenda jobs (both profiles).
 *
 * The queued writes themselves are the durable queue; a job only says "drain this tenant". Every
 * accepted write calls the trigger below, which enqueues a job unless one it enqueued moments ago has
 * not started draining yet (that job will see the write). A recurring sweep re-triggers every tenant
 * that still has queued writes, so nothing is forgotten if a trigger is lost (a crash between the 202
 * and the enqueue, a worker killed while holding the job: its lock expires after `lockLifetimeMs`, the
 * sweep or the retry runs it again).
 */
import { z } from 'zod';
import type { Logger } from '../../server/logger.js';
import type { JobQueue } from '../../server/ports/job-queue.js';
import { defineJob } from '../definition.js';

/**
 * How long an enqueued job that has not been seen to start still covers new writes. Within this
 * process a drain start is seen at once; for an external worker this bounds the extra wait of a write
 * that arrives just after a job was picked up.
 */
export const TRIGGER_COVER_MS = 100;
/** How long one run drains before handing over to a continuation (fairness between tenants). */
export const DRAIN_BUDGET_MS = 20_000;
/** Short enough that a killed worker's job is taken over quickly; each batch renews it. */
export const CONSOLIDATION_LOCK_MS = 15_000;
export const SWEEP_INTERVAL = '10 seconds';

/** `slot` only makes the unique key of one enqueue: jobs of one tenant differ by it. */
const payload = z.object({ tenantId: z.string().min(1).max(200), slot: z.number().int().min(0).optional() });

export const consolidateWrites = defineJob({
  name: 'memory.consolidate-writes',
  payload,
  concurrency: 4,
  lockLifetimeMs: CONSOLIDATION_LOCK_MS,
  retry: { attempts: 8, baseMs: 500, maxMs: 60_000 },
  async handler({ tenantId }, services, job) {
    // A follow-up drain of this tenant is already queued in this process (another job waits for it):
    // it will see this job's writes, so this job frees its concurrency slot for other tenants at once.
    if (services.consolidation.followUpQueued(tenantId)) return;
    const result = await services.consolidation.drainTenant(tenantId, {
      budgetMs: DRAIN_BUDGET_MS,
      // Renewed after every batch of the tenant, also while this job waits behind the running drain of
      // it (a drain may run DRAIN_BUDGET_MS, longer than the lock): only a job whose process stopped
      // making progress loses its lock.
      onProgress: () =>
        job.touch().catch((err: unknown) => {
          if (!job.isCanceled()) job.logger.warn({ tenantId, err: err instanceof Error ? err.message : String(err) }, 'could not renew the consolidation job lock');
        }),
      shouldStop: () => job.isCanceled(),
    });
    if (result.applied > 0) job.logger.debug({ tenantId, applied: result.applied, batches: result.batches }, 'writes consolidated');
    if (result.remaining) await enqueue(services.jobs, tenantId, services.now());
  },
});

export const consolidationSweep = defineJob({
  name: 'memory.consolidation-sweep',
  payload: z.object({}).optional(),
  concurrency: 1,
  lockLifetimeMs: 60_000,
  retry: { attempts: 3, baseMs: 1_000 },
  async handler(_payload, services) {
    const now = services.now();
    for (const tenantId of await services.consolidation.tenantsWithPending(10_000)) await enqueue(services.jobs, tenantId, now);
    await services.maintenance.purgeExpiredIdempotencyKeys();
  },
});

/** One consolidation job for the tenant; enqueues at the same millisecond collapse into one. */
function enqueue(jobs: JobQueue, tenantId: string, now: number) {
  return jobs.now(consolidateWrites, { tenantId, slot: now }, { unique: { tenantId, slot: now }, insertOnly: true });
}

export interface ConsolidationTrigger {
  /** The memory service's `onQueued`: a write of the tenant was committed. Never throws. */
  queued(tenantId: string): void;
  /** The consolidation service's `onDrainStart`: a drain of the tenant is about to read the queue. */
  drainStarted(tenantId: string): void;
  /** The consolidation service's `onDrainEnd`: that drain read an empty queue (or stopped) and ended. */
  drainEnded(tenantId: string): void;
}

/**
 * Enqueues a consolidation job for a tenant's committed write, except when something already covers
 * it: a drain of the tenant running in this process (it reads the queue again before it ends; a write
 * that lands after its last read is enqueued when it ends), or a job this process enqueued less than
 * TRIGGER_COVER_MS ago that has not started (a trailing enqueue covers the write once that window ends,
 * unless a drain read the queue meanwhile). So every write is followed by a drain that reads the queue
 * after its commit; a failed enqueue is logged and left to the sweep.
 */
export function createConsolidationTrigger(jobs: () => JobQueue, logger: Logger, clock: () => number = Date.now): ConsolidationTrigger {
  interface State {
    /** When this process last enqueued for the tenant, or -Infinity after a drain read the queue. */
    firedAt: number;
    /** A write was committed since the last enqueue or queue read, and nothing covers it yet. */
    suppressed: boolean;
    /** Drains of the tenant running in this process. */
    running: number;
    trailing: ReturnType<typeof setTimeout> | null;
  }
  const tenants = new Map<string, State>();
  const stateOf = (tenantId: string): State => {
    let state = tenants.get(tenantId);
    if (!state) {
      if (tenants.size >= 10_000) for (const [id, s] of tenants) if (s.running === 0 && !s.trailing) tenants.delete(id);
      state = { firedAt: Number.NEGATIVE_INFINITY, suppressed: false, running: 0, trailing: null };
      tenants.set(tenantId, state);
    }
    return state;
  };
  const fire = (tenantId: string, state: State) => {
    const now = clock();
    state.firedAt = now;
    state.suppressed = false;
    enqueue(jobs(), tenantId, now).catch((err: unknown) =>
      logger.warn({ tenantId, err: err instanceof Error ? err.message : String(err) }, 'could not enqueue consolidation; the sweep will'),
    );
  };
  return {
    queued(tenantId) {
      const state = stateOf(tenantId);
      if (state.running > 0) {
        state.suppressed = true; // the running drain reads the queue again, or drainEnded enqueues
        return;
      }
      const now = clock();
      if (now - state.firedAt >= TRIGGER_COVER_MS) {
        fire(tenantId, state);
        return;
      }
      state.suppressed = true;
      if (state.trailing) return;
      const s = state;
      s.trailing = setTimeout(
        () => {
          s.trailing = null;
          if (s.suppressed && s.running === 0) fire(tenantId, s);
        },
        Math.max(1, s.firedAt + TRIGGER_COVER_MS - now),
      );
      s.trailing.unref?.();
    },
    drainStarted(tenantId) {
      const state = stateOf(tenantId);
      if (state.running === 0) state.running = 1;
      // Every write committed so far is read by this drain (it runs until the queue is empty).
      state.suppressed = false;
      state.firedAt = Number.NEGATIVE_INFINITY;
    },
    drainEnded(tenantId) {
      const state = stateOf(tenantId);
      state.running = 0;
      if (state.suppressed) fire(tenantId, state);
    },
  };
}

/** Recurring memory jobs; called where workers start (idempotent: one schedule row per name). */
export async function scheduleMemoryJobs(jobs: JobQueue): Promise<void> {
  await jobs.every(SWEEP_INTERVAL, consolidationSweep, {});
}
