/**
 * Consolidation of queued memory writes as Agenda jobs (both profiles).
 *
 * The queued writes themselves are the durable queue; a job only says "drain this tenant". Every
 * accepted write calls the trigger below, which enqueues at most one job per tenant per time slot
 * (`slot` in the payload is the unique key, so a job already running never swallows the trigger of a
 * write it did not see). A recurring sweep re-triggers every tenant that still has queued writes, so
 * nothing is forgotten if a trigger is lost (a crash between the 202 and the enqueue, a worker killed
 * while holding the job: its lock expires after `lockLifetimeMs`, the sweep or the retry runs it again).
 */
import { z } from 'zod';
import type { Logger } from '../../server/logger.js';
import type { JobQueue } from '../../server/ports/job-queue.js';
import { defineJob } from '../definition.js';

/** Time slot of the trigger's unique key: at most one enqueue per tenant per slot. */
export const TRIGGER_SLOT_MS = 100;
/** How long one run drains before handing over to a continuation (fairness between tenants). */
export const DRAIN_BUDGET_MS = 20_000;
/** Short enough that a killed worker's job is taken over quickly; each batch renews it. */
export const CONSOLIDATION_LOCK_MS = 15_000;
export const SWEEP_INTERVAL = '10 seconds';

export const consolidateWrites = defineJob({
  name: 'memory.consolidate-writes',
  payload: z.object({ tenantId: z.string().min(1).max(200), slot: z.number().int().min(0).optional() }),
  concurrency: 4,
  lockLifetimeMs: CONSOLIDATION_LOCK_MS,
  retry: { attempts: 8, baseMs: 500, maxMs: 60_000 },
  async handler({ tenantId }, services, job) {
    const result = await services.consolidation.drainTenant(tenantId, {
      budgetMs: DRAIN_BUDGET_MS,
      onBatch: () => job.touch(),
      shouldStop: () => job.isCanceled(),
    });
    if (result.applied > 0) job.logger.debug({ tenantId, applied: result.applied, batches: result.batches }, 'writes consolidated');
    if (result.remaining) {
      await services.jobs.now(consolidateWrites, { tenantId, slot: slotOf(services.now()) + 1 }, { unique: { tenantId, slot: slotOf(services.now()) + 1 }, insertOnly: true });
    }
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
    for (const tenantId of await services.consolidation.tenantsWithPending(10_000)) {
      await services.jobs.now(consolidateWrites, { tenantId, slot: slotOf(now) }, { unique: { tenantId, slot: slotOf(now) }, insertOnly: true });
    }
    await services.ports.idempotency.purgeExpired(new Date(now).toISOString());
  },
});

function slotOf(ms: number): number {
  return Math.floor(ms / TRIGGER_SLOT_MS);
}

/**
 * The `onQueued` hook of the memory service: enqueues a consolidation job for the tenant at most once
 * per tenant and slot from this process; a write whose trigger falls in a slot that already enqueued
 * arms one trailing enqueue at the start of the next slot, so every write is followed by a job that
 * starts after it was committed. Never throws (the write is already durable; the sweep covers a failed
 * enqueue).
 */
export function createConsolidationTrigger(jobs: () => JobQueue, logger: Logger, clock: () => number = Date.now): (tenantId: string) => void {
  /** Per tenant: the slot last enqueued, whether a write was suppressed since, and the trailing timer. */
  const tenants = new Map<string, { slot: number; suppressed: boolean; trailing: ReturnType<typeof setTimeout> | null }>();
  const fire = (tenantId: string, slot: number) => {
    jobs()
      .now(consolidateWrites, { tenantId, slot }, { unique: { tenantId, slot }, insertOnly: true })
      .catch((err: unknown) => logger.warn({ tenantId, err: err instanceof Error ? err.message : String(err) }, 'could not enqueue consolidation; the sweep will'));
  };
  return (tenantId) => {
    const now = clock();
    const slot = slotOf(now);
    let state = tenants.get(tenantId);
    if (!state) {
      if (tenants.size >= 10_000) tenants.clear();
      state = { slot: -1, suppressed: false, trailing: null };
      tenants.set(tenantId, state);
    }
    if (slot > state.slot) {
      // Enqueued after this write committed: whatever was suppressed before is covered too.
      state.slot = slot;
      state.suppressed = false;
      fire(tenantId, slot);
      return;
    }
    state.suppressed = true;
    if (state.trailing) return;
    const s = state;
    s.trailing = setTimeout(
      () => {
        s.trailing = null;
        if (!s.suppressed) return;
        s.slot = Math.max(slotOf(clock()), s.slot + 1);
        s.suppressed = false;
        fire(tenantId, s.slot);
      },
      Math.max(1, (slot + 1) * TRIGGER_SLOT_MS - now),
    );
    s.trailing.unref?.();
  };
}

/** Recurring memory jobs; called where workers start (idempotent: one schedule row per name). */
export async function scheduleMemoryJobs(jobs: JobQueue): Promise<void> {
  await jobs.every(SWEEP_INTERVAL, consolidationSweep, {});
}
