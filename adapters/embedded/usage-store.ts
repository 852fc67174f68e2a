import type { UsageCounter, UsageStore } from '../../server/ports/usage.js';
import type { EmbeddedDatabase } from './database.js';

/** Usage counters and totals of the embedded profile (tables of migration 10; per-day counters of migration 61, kept by its triggers). */
export function createEmbeddedUsageStore(db: EmbeddedDatabase): UsageStore {
  const counters = db.prepare('SELECT writes, reads, searches FROM usage_periods WHERE tenant_id = ? AND period = ?');
  const totals = db.prepare('SELECT memory_count, storage_bytes FROM usage_totals WHERE tenant_id = ?');
  const days = db.prepare(`SELECT day, writes, reads, searches FROM usage_days
    WHERE tenant_id = ? AND day >= ? AND day <= ? ORDER BY day`);
  const pending = db.prepare('SELECT COUNT(*) AS n FROM memory_writes WHERE tenant_id = ?');
  const inNamespaces = db.prepare(`SELECT COUNT(*) AS n, COALESCE(SUM(size_bytes), 0) AS bytes FROM memories
    WHERE tenant_id = ?1 AND namespace IN (SELECT value FROM json_each(?2)) AND merged_into IS NULL`);
  const pendingInNamespaces = db.prepare(
    'SELECT COUNT(*) AS n FROM memory_writes WHERE tenant_id = ?1 AND namespace IN (SELECT value FROM json_each(?2))',
  );
  const consume: Record<UsageCounter, ReturnType<EmbeddedDatabase['prepare']>> = {
    reads: db.prepare(`INSERT INTO usage_periods (tenant_id, period, reads) SELECT ?1, ?2, ?3 WHERE ?4 IS NULL OR ?3 <= ?4
      ON CONFLICT (tenant_id, period) DO UPDATE SET reads = reads + excluded.reads WHERE ?4 IS NULL OR reads + excluded.reads <= ?4
      RETURNING reads AS value`),
    searches: db.prepare(`INSERT INTO usage_periods (tenant_id, period, searches) SELECT ?1, ?2, ?3 WHERE ?4 IS NULL OR ?3 <= ?4
      ON CONFLICT (tenant_id, period) DO UPDATE SET searches = searches + excluded.searches WHERE ?4 IS NULL OR searches + excluded.searches <= ?4
      RETURNING searches AS value`),
  };

  return {
    async consume(tenantId, period, counter, limit, by = 1) {
      const row = consume[counter].get([tenantId, period, by, limit]) as { value: number } | undefined;
      return row ? row.value : null;
    },
    async snapshot(tenantId, period) {
      const c = (counters.get([tenantId, period]) as { writes: number; reads: number; searches: number } | undefined) ?? {
        writes: 0,
        reads: 0,
        searches: 0,
      };
      const t = (totals.get([tenantId]) as { memory_count: number; storage_bytes: number } | undefined) ?? {
        memory_count: 0,
        storage_bytes: 0,
      };
      const p = (pending.get([tenantId]) as { n: number }).n;
      return {
        period,
        writes: c.writes,
        reads: c.reads,
        searches: c.searches,
        memoryCount: t.memory_count,
        storageBytes: t.storage_bytes,
        pendingWrites: p,
      };
    },
    async days(tenantId, fromDay, toDay) {
      return (days.all([tenantId, fromDay, toDay]) as { day: string; writes: number; reads: number; searches: number }[]).map((r) => ({
        day: r.day,
        writes: r.writes,
        reads: r.reads,
        searches: r.searches,
      }));
    },
    async namespaceTotals(tenantId, namespaces) {
      const list = JSON.stringify(namespaces);
      const m = inNamespaces.get([tenantId, list]) as { n: number; bytes: number };
      const p = pendingInNamespaces.get([tenantId, list]) as { n: number };
      return { memoryCount: m.n, storageBytes: m.bytes, pendingWrites: p.n };
    },
  };
}
