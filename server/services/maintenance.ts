/**
 * Housekeeping that keeps the store from growing without bound. The recurring jobs in `jobs/` call
 * these; every purge is idempotent, so a repeated or concurrent run is harmless.
 */
import type { AttemptCounters } from '../ports/attempt-counters.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { SessionStore } from '../ports/sessions.js';
import { isoAt, type Clock } from './clock.js';

/** Ended sessions are kept this long (a refresh token presented just after the end still gets a clear 401 from its session). */
export const ENDED_SESSION_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface MaintenanceDeps {
  sessions: Pick<SessionStore, 'purgeEnded'>;
  attemptCounters: Pick<AttemptCounters, 'purgeExpired'>;
  idempotency: Pick<IdempotencyStore, 'purgeExpired'>;
  clock: Clock;
}

export interface MaintenanceService {
  /** Sessions that ended (expired or revoked) over `ENDED_SESSION_RETENTION_MS` ago, with their refresh tokens, and closed sign-in throttle windows. */
  purgeEnded(): Promise<{ sessions: number; windows: number }>;
  /** Idempotency records past their expiry, of every tenant; returns how many. */
  purgeExpiredIdempotencyKeys(): Promise<number>;
}

export function createMaintenanceService(deps: MaintenanceDeps): MaintenanceService {
  return {
    async purgeEnded() {
      const now = deps.clock();
      const sessions = await deps.sessions.purgeEnded(isoAt(now - ENDED_SESSION_RETENTION_MS));
      const windows = await deps.attemptCounters.purgeExpired(now);
      return { sessions, windows };
    },
    purgeExpiredIdempotencyKeys: () => deps.idempotency.purgeExpired(isoAt(deps.clock())),
  };
}
