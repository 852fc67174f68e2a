/**
 * Retention: purges, for every tenant that set `superseded_days`, the memory versions replaced longer
 * ago than that (`server/services/retention.ts` says what each setting purges). Recurring, one schedule
 * row across all processes; each storage call handles a bounded batch of memories, and a run that stops
 * half way is simply continued by the next one.
 */
import { enforceRetentionJob } from '../../server/jobs/catalogue.js';
import { bindJob } from '../definition.js';

export const enforceRetention = bindJob(enforceRetentionJob, {
  concurrency: 1,
  lockLifetimeMs: 30 * 60_000,
  retry: { attempts: 3, baseMs: 30_000 },
  every: { interval: '1 hour', payload: {} },
  async handler(_payload, services, job) {
    const { tenants, versions } = await services.retention.enforce();
    if (versions > 0) job.logger.info({ tenants, versions }, 'retention purged superseded memory versions');
  },
});
