/**
 * Per-tenant retention (`/api/portal/retention`) and its enforcement by the recurring
 * `maintenance.retention` job.
 *
 * What each setting purges, honestly:
 *  - `superseded_days`: memory versions that a newer version replaced more than that many days ago
 *    (the version history behind `GET /memories/{id}/versions`; the current version always stays, so a
 *    rollback can only go back as far as what is kept).
 *  - `deleted_days`: deletions in this service are already immediate and permanent (a deleted memory
 *    or knowledge object, with its versions, queue entries, index rows and log, is gone at once), so
 *    there is nothing soft-deleted for it to purge; it is stored and reported as the tenant's stated
 *    ceiling, which the service always meets.
 */
import type { RetentionSettings, RetentionStore } from '../ports/retention.js';
import type { AuditService, RequestMeta } from './audit.js';
import { isoAt, type Clock } from './clock.js';

export const RETENTION_MAX_DAYS = 3650;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Memories per step of the purge walk (its deletes in one transaction), and tenants per settings page. */
export const RETENTION_BATCH = 200;
const TENANT_PAGE = 100;

export interface RetentionInput {
  deletedDays: number | null;
  supersededDays: number | null;
}

export interface RetentionRun {
  tenants: number;
  versions: number;
}

export interface RetentionService {
  get(tenantId: string): Promise<RetentionSettings>;
  /** Stores the tenant's settings and audits `retention.change` (old and new values). */
  set(actor: { userId: string; tenantId: string }, input: RetentionInput, meta: RequestMeta): Promise<RetentionSettings>;
  /** One pass over every tenant with a limit: purges, in bounded batches, what its settings no longer keep. */
  enforce(): Promise<RetentionRun>;
}

export function createRetentionService(deps: { retention: RetentionStore; audit: AuditService; clock: Clock }): RetentionService {
  const { retention, audit, clock } = deps;

  async function purgeTenant(tenantId: string, supersededDays: number): Promise<number> {
    const cutoff = isoAt(clock() - supersededDays * DAY_MS);
    let versions = 0;
    let after: string | null = null;
    do {
      const step = await retention.purgeSupersededVersions(tenantId, cutoff, after, RETENTION_BATCH);
      versions += step.removed;
      after = step.next;
    } while (after !== null);
    if (versions > 0) {
      await audit.record({
        tenantId,
        type: 'retention.purge',
        target: { type: 'retention', id: tenantId },
        details: { superseded_versions: versions, superseded_days: supersededDays, cutoff },
      });
    }
    return versions;
  }

  return {
    get: (tenantId) => retention.get(tenantId),

    async set(actor, input, meta) {
      const before = await retention.get(actor.tenantId);
      const after = await retention.put(actor.tenantId, { ...input, updatedAt: isoAt(clock()), updatedBy: actor.userId });
      await audit.record({
        tenantId: actor.tenantId,
        type: 'retention.change',
        actor: { userId: actor.userId },
        ...meta,
        target: { type: 'retention', id: actor.tenantId },
        details: {
          old: { deleted_days: before.deletedDays, superseded_days: before.supersededDays },
          new: { deleted_days: after.deletedDays, superseded_days: after.supersededDays },
        },
      });
      return after;
    },

    async enforce() {
      const run: RetentionRun = { tenants: 0, versions: 0 };
      let after: string | null = null;
      for (;;) {
        const page = await retention.listLimited(after, TENANT_PAGE);
        for (const { tenantId, settings } of page) {
          if (settings.supersededDays === null) continue;
          const versions = await purgeTenant(tenantId, settings.supersededDays);
          if (versions > 0) run.tenants++;
          run.versions += versions;
        }
        if (page.length < TENANT_PAGE) return run;
        after = page[page.length - 1]!.tenantId;
      }
    },
  };
}
