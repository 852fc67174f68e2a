/**
 * Per-tenant retention settings (`/api/portal/retention`) and the purge the retention job runs with
 * them. A tenant without a stored row keeps everything (both settings null).
 */
export interface RetentionSettings {
  /** Days an explicitly deleted item is kept before it is purged; null keeps it forever. */
  deletedDays: number | null;
  /** Days a memory version is kept after a newer version replaced it; null keeps it forever. */
  supersededDays: number | null;
  /** ISO 8601 of the last change; null when never set. */
  updatedAt: string | null;
  /** The user who made the last change; null when never set. */
  updatedBy: string | null;
}

export const DEFAULT_RETENTION: RetentionSettings = { deletedDays: null, supersededDays: null, updatedAt: null, updatedBy: null };

/** A tenant whose retention keeps something for a limited time (at least one setting not null). */
export interface ConfiguredRetention {
  tenantId: string;
  settings: RetentionSettings;
}

/** What one step of the superseded-version purge did, and where the next one starts. */
export interface PurgeStep {
  removed: number;
  next: string | null;
}

export interface RetentionStore {
  get(tenantId: string): Promise<RetentionSettings>;
  put(tenantId: string, settings: RetentionSettings): Promise<RetentionSettings>;
  /** Tenants with at least one limited setting, in tenant id order after `afterTenantId` (the job's pages). */
  listLimited(afterTenantId: string | null, limit: number): Promise<ConfiguredRetention[]>;
  /**
   * One step of a walk over the tenant's memories in id order: the next `maxMemories` memories after
   * `afterMemoryId` that have a version created before `cutoff`, and in each, every version that a
   * newer version had replaced before `cutoff` — the versions older than its newest version created
   * before `cutoff` (which itself stays, as do all later ones) — is purged. Returns how many versions
   * were removed and where the walk goes on (`next`: null once past the tenant's last memory), so a
   * pass reads each version once and each step is bounded.
   */
  purgeSupersededVersions(tenantId: string, cutoff: string, afterMemoryId: string | null, maxMemories: number): Promise<PurgeStep>;
}
