/**
 * Housekeeping that keeps the store from growing without bound: sessions that ended (expired or
 * revoked) more than a day ago, with their refresh tokens, and sign-in throttle windows that closed.
 * Recurring, one schedule row across all processes; idempotent, so a repeated run is harmless.
 */
import { z } from 'zod';
import { defineJob } from '../definition.js';

/** Ended sessions are kept this long (a refresh token presented just after the end still gets a clear 401 from its session). */
export const ENDED_SESSION_RETENTION_MS = 24 * 60 * 60 * 1000;

export const purgeEnded = defineJob({
  name: 'maintenance.purge-ended',
  payload: z.object({}).optional(),
  concurrency: 1,
  lockLifetimeMs: 5 * 60_000,
  retry: { attempts: 3, baseMs: 10_000 },
  every: { interval: '1 hour', payload: {} },
  async handler(_payload, services, job) {
    const now = services.now();
    const sessions = await services.ports.sessions.purgeEnded(new Date(now - ENDED_SESSION_RETENTION_MS).toISOString());
    const windows = await services.ports.attemptCounters.purgeExpired(now);
    if (sessions + windows > 0) job.logger.info({ sessions, windows }, 'purged ended sessions and throttle windows');
  },
});
