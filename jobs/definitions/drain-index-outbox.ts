/**
 * The search index outbox's drain (server profile): a commit applies its index work right away, and
 * this recurring job applies what that left behind — after a Qdrant outage, a crash between commit and
 * flush, or an entry that failed — for every tenant with pending entries, so a committed memory
 * becomes searchable without waiting for its tenant's next write. On the embedded profile, where index
 * rows commit with the memory, a run returns at once.
 */
import { drainIndexOutboxJob } from '../../server/jobs/catalogue.js';
import { bindJob } from '../definition.js';

export const OUTBOX_DRAIN_INTERVAL = '30 seconds';
/** One run's share of work; the tenants left over go to the next run. */
export const OUTBOX_DRAIN_BUDGET_MS = 60_000;

export const drainIndexOutbox = bindJob(drainIndexOutboxJob, {
  concurrency: 1,
  // Renewed after every tenant; a tenant's drain holds its own lease in the store besides.
  lockLifetimeMs: 2 * 60_000,
  retry: { attempts: 3, baseMs: 5_000 },
  every: { interval: OUTBOX_DRAIN_INTERVAL, payload: {} },
  async handler(_payload, services, job) {
    if (!services.indexOutbox.enabled) return;
    const r = await services.indexOutbox.drainPending({
      budgetMs: OUTBOX_DRAIN_BUDGET_MS,
      onProgress: () => void job.touch().catch(() => undefined),
      shouldStop: () => job.isCanceled(),
    });
    if (r.outage)
      job.logger.warn({ applied: r.applied, tenants: r.tenants }, 'search index unavailable: the outbox drain stops until its next run');
    else if (r.applied + r.failed > 0)
      job.logger.info(
        { tenants: r.tenants, applied: r.applied, failed: r.failed, poisoned: r.poisoned, remaining: r.remaining },
        'search index outbox drained',
      );
  },
});
