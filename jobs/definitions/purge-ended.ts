/**
 * Housekeeping that keeps the store from growing without bound: sessions that ended (expired or
 * revoked) more than a day ago, with their refresh tokens, and sign-in throttle windows that closed.
 * Recurring, one schedule row across all processes; idempotent, so a repeated run is harmless.
 */
import { purgeEndedJob } from '../../server/jobs/catalogue.js';
import { bindJob } from '../definition.js';

export const purgeEnded = bindJob(purgeEndedJob, {
  concurrency: 1,
  lockLifetimeMs: 5 * 60_000,
  retry: { attempts: 3, baseMs: 10_000 },
  every: { interval: '1 hour', payload: {} },
  async handler(_payload, services, job) {
    const { sessions, windows } = await services.maintenance.purgeEnded();
    if (sessions + windows > 0) job.logger.info({ sessions, windows }, 'purged ended sessions and throttle windows');
  },
});
