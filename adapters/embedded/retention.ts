import type { RetentionSettings, RetentionStore } from '../../server/ports/retention.js';
import type { EmbeddedDatabase } from './database.js';

interface Row {
  tenant_id: string;
  deleted_days: number | null;
  superseded_days: number | null;
  updated_at: string;
  updated_by: string | null;
}

const toSettings = (r: Row): RetentionSettings => ({
  deletedDays: r.deleted_days === null ? null : Number(r.deleted_days),
  supersededDays: r.superseded_days === null ? null : Number(r.superseded_days),
  updatedAt: r.updated_at,
  updatedBy: r.updated_by,
});

interface Keeper {
  memory_id: string;
  keep: number;
  n: number;
}

const unset: RetentionSettings = { deletedDays: null, supersededDays: null, updatedAt: null, updatedBy: null };

/** Retention settings and the superseded-version purge in the embedded database. */
export function createEmbeddedRetentionStore(db: EmbeddedDatabase): RetentionStore {
  const get = db.prepare('SELECT * FROM retention_settings WHERE tenant_id = ?');
  const upsert = db.prepare(
    `INSERT INTO retention_settings (tenant_id, deleted_days, superseded_days, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(tenant_id) DO UPDATE SET deleted_days = excluded.deleted_days, superseded_days = excluded.superseded_days,
       updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
  );
  const limited = db.prepare(
    `SELECT * FROM retention_settings WHERE tenant_id > ? AND (deleted_days IS NOT NULL OR superseded_days IS NOT NULL)
     ORDER BY tenant_id LIMIT ?`,
  );
  // The next memories (in id order, along the (tenant_id, memory_id, version) index) with versions
  // before the cutoff: per memory the newest of them, which stays, and how many there are.
  const keepers = db.prepare(
    `SELECT memory_id, MAX(version) AS keep, COUNT(*) AS n FROM memory_versions
     WHERE tenant_id = ? AND memory_id > ? AND created_at < ?
     GROUP BY memory_id ORDER BY memory_id LIMIT ?`,
  );
  const purge = db.prepare('DELETE FROM memory_versions WHERE memory_id = ? AND tenant_id = ? AND version < ?');
  // Only the deletes hold the write lock. Reading first is safe: a version written meanwhile is newer
  // than `keep`, and only versions older than `keep` are deleted.
  const purgeTx = db.transaction((tenantId: string, keepers: readonly Keeper[]) => {
    let removed = 0;
    for (const k of keepers) removed += purge.run([k.memory_id, tenantId, Number(k.keep)]).changes;
    return removed;
  });

  return {
    async get(tenantId) {
      const row = get.get([tenantId]) as Row | undefined;
      return row ? toSettings(row) : { ...unset };
    },
    async put(tenantId, s) {
      upsert.run([tenantId, s.deletedDays, s.supersededDays, s.updatedAt, s.updatedBy]);
      return toSettings(get.get([tenantId]) as Row);
    },
    async listLimited(afterTenantId, limit) {
      return (limited.all([afterTenantId ?? '', limit]) as Row[]).map((r) => ({ tenantId: r.tenant_id, settings: toSettings(r) }));
    },
    async purgeSupersededVersions(tenantId, cutoff, afterMemoryId, maxMemories) {
      const page = keepers.all([tenantId, afterMemoryId ?? '', cutoff, maxMemories]) as Keeper[];
      const purgeable = page.filter((k) => Number(k.n) > 1);
      const removed = purgeable.length === 0 ? 0 : purgeTx.immediate(tenantId, purgeable);
      return { removed, next: page.length < maxMemories ? null : page[page.length - 1]!.memory_id };
    },
  };
}
