/**
 * Consolidation of queued memory writes as Agenda jobs (both profiles). When a drain is enqueued is
 * decided by the consolidation trigger (`server/services/memories/consolidation-trigger.ts`).
 */
import { consolidateWritesJob, consolidationSweepJob } from '../../server/jobs/catalogue.js';
import { bindJob } from '../definition.js';

/** How long one run drains before handing over to a continuation (fairness between tenants). */
export const DRAIN_BUDGET_MS = 20_000;
/** Short enough that a killed worker's job is taken over quickly; each batch renews it. */
export const CONSOLIDATION_LOCK_MS = 15_000;
export const SWEEP_INTERVAL = '10 seconds';

export const consolidateWrites = bindJob(consolidateWritesJob, {
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
          if (!job.isCanceled())
            job.logger.warn(
              { tenantId, err: err instanceof Error ? err.message : String(err) },
              'could not renew the consolidation job lock',
            );
        }),
      shouldStop: () => job.isCanceled(),
    });
    if (result.applied > 0) job.logger.debug({ tenantId, applied: result.applied, batches: result.batches }, 'writes consolidated');
    if (result.remaining) await services.consolidationTrigger.requestDrain(tenantId);
  },
});

export const consolidationSweep = bindJob(consolidationSweepJob, {
  concurrency: 1,
  lockLifetimeMs: 60_000,
  retry: { attempts: 3, baseMs: 1_000 },
  every: { interval: SWEEP_INTERVAL, payload: {} },
  async handler(_payload, services) {
    const now = services.clock();
    for (const tenantId of await services.consolidation.tenantsWithPending(10_000))
      await services.consolidationTrigger.requestDrain(tenantId, now);
    await services.maintenance.purgeExpiredIdempotencyKeys();
  },
});
