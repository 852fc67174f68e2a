import type {
  EnrichmentLogRecord,
  IdentityMatch,
  KnowledgeObjectRecord,
  KnowledgeObjectStore,
  ObjectListQuery,
  ObjectWriteResult,
  StorageQuota,
} from '../../server/ports/knowledge.js';
import { countMoves, storageQuotaExceeded, type CountKey } from '../../server/storage-rules/knowledge-storage.js';
import {
  LOG_COLUMNS,
  LOG_PLACEHOLDERS,
  OBJECT_COLUMNS,
  OBJECT_PLACEHOLDERS,
  logColumns,
  objectColumns,
  toLogRecord,
  toObjectRecord,
  type LogRow,
  type ObjectRow,
} from './knowledge-object-rows.js';
import type { EmbeddedDatabase } from './database.js';
import { preparedStatement } from './statement-cache.js';

/** The WHERE clause and ORDER BY of one list page (the cursor's condition included), its total's, and their parameters. */
function listQuery(tenantId: string, type: string, q: ObjectListQuery) {
  const where = ['tenant_id = ?', 'type = ?'];
  const params: unknown[] = [tenantId, type];
  if (q.status !== undefined) {
    where.push('status = ?');
    params.push(q.status);
  }
  const byCompleteness = q.completenessLt !== undefined;
  if (byCompleteness) {
    where.push('completeness < ?');
    params.push(q.completenessLt);
  }
  // The total has the same filter over `knowledge_object_counts`, whose columns have the same names.
  const countWhere = where.join(' AND ');
  const countParams = [...params];
  // A row value comparison on the index's trailing columns is one range of it (no OFFSET walk).
  if (q.after) {
    if (byCompleteness) {
      if (q.after.completenessScore === undefined) throw new Error('a completeness-ordered list needs a cursor with completenessScore');
      where.push('(completeness, created_at, id) > (?, ?, ?)');
      params.push(q.after.completenessScore, q.after.createdAt, q.after.id);
    } else {
      where.push('(created_at, id) > (?, ?)');
      params.push(q.after.createdAt, q.after.id);
    }
  }
  const order = byCompleteness ? 'completeness, created_at, id' : 'created_at, id';
  return { countWhere, countParams, where: where.join(' AND '), params, order };
}

/**
 * Knowledge objects and their enrichment log in the embedded libsql database. Every write is one
 * `BEGIN IMMEDIATE` transaction holding the revision check, the quota check against
 * `usage_totals.storage_bytes`, the row, the log, the total's adjustment and the list counts'. Objects
 * count toward the tenant's stored bytes, not its memory count.
 */
export function createEmbeddedKnowledgeObjectStore(db: EmbeddedDatabase): KnowledgeObjectStore {
  const get = db.prepare(`SELECT ${OBJECT_COLUMNS} FROM knowledge_objects WHERE tenant_id = ? AND id = ?`);
  const insert = db.prepare(`INSERT INTO knowledge_objects (${OBJECT_COLUMNS}) VALUES (${OBJECT_PLACEHOLDERS})`);
  const current = db.prepare(
    'SELECT type, revision, size_bytes, status, completeness FROM knowledge_objects WHERE tenant_id = ? AND id = ?',
  );
  const replace = db.prepare(`UPDATE knowledge_objects SET structure_id = ?, schema_version = ?, status = ?, completeness = ?,
      do_not_enrich = ?, fields = ?, identity_key = ?, enriched_at = ?, enrichment_run_id = ?, enrichment_since = ?,
      size_bytes = ?, revision = ?, updated_at = ?
    WHERE tenant_id = ? AND id = ? AND revision = ?`);
  const deleteRow = db.prepare(`DELETE FROM knowledge_objects WHERE tenant_id = ? AND id = ? RETURNING ${OBJECT_COLUMNS}`);
  const deleteLog = db.prepare('DELETE FROM knowledge_enrichment_log WHERE tenant_id = ? AND object_id = ?');
  const insertLog = db.prepare(`INSERT INTO knowledge_enrichment_log (${LOG_COLUMNS}) VALUES (${LOG_PLACEHOLDERS})`);
  const logPosition = db.prepare(
    'SELECT created_at, seq, id FROM knowledge_enrichment_log WHERE id = ? AND tenant_id = ? AND object_id = ?',
  );
  const byIdentity = db.prepare(`SELECT ${OBJECT_COLUMNS} FROM knowledge_objects WHERE tenant_id = ? AND type = ? AND identity_key = ?
    ORDER BY created_at, id LIMIT ?`);
  // The keys travel as one JSON array: one statement whatever their number, each key an index probe.
  const byIdentityKeys = db.prepare(`SELECT id, type, identity_key, do_not_enrich, enrichment_run_id, enrichment_since
    FROM knowledge_objects WHERE tenant_id = ? AND identity_key IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?`);
  const usesVersion = db.prepare('SELECT 1 FROM knowledge_objects WHERE tenant_id = ? AND type = ? AND schema_version = ? LIMIT 1');
  const notAtVersion = db.prepare(`SELECT ${OBJECT_COLUMNS} FROM knowledge_objects
    WHERE tenant_id = ? AND type = ? AND id > ? AND schema_version <> ? ORDER BY id LIMIT ?`);
  const allFirst = db.prepare(`SELECT ${OBJECT_COLUMNS} FROM knowledge_objects WHERE tenant_id = ? ORDER BY type, id LIMIT ?`);
  const allAfter = db.prepare(`SELECT ${OBJECT_COLUMNS} FROM knowledge_objects
    WHERE tenant_id = ? AND (type, id) > (?, ?) ORDER BY type, id LIMIT ?`);
  const storedBytes = db.prepare('SELECT storage_bytes FROM usage_totals WHERE tenant_id = ?');
  const adjustBytes = db.prepare(`INSERT INTO usage_totals (tenant_id, memory_count, storage_bytes) VALUES (?, 0, ?)
    ON CONFLICT (tenant_id) DO UPDATE SET storage_bytes = storage_bytes + excluded.storage_bytes`);

  const addCount = db.prepare(`INSERT INTO knowledge_object_counts (tenant_id, type, status, completeness, n) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (tenant_id, type, status, completeness) DO UPDATE SET n = n + excluded.n`);
  const dropEmptyCount = db.prepare(
    'DELETE FROM knowledge_object_counts WHERE tenant_id = ? AND type = ? AND status = ? AND completeness = ? AND n <= 0',
  );
  const countsByType = db.prepare(
    'SELECT type, SUM(n) AS n FROM knowledge_object_counts WHERE tenant_id = ? GROUP BY type HAVING SUM(n) > 0 ORDER BY type',
  );
  const moveCounts = (tenantId: string, type: string, before: CountKey | null, after: CountKey | null) => {
    for (const m of countMoves(before, after)) {
      addCount.run([tenantId, type, m.status, m.completenessScore, m.by]);
      if (m.by < 0) dropEmptyCount.run([tenantId, type, m.status, m.completenessScore]);
    }
  };

  const exceeds = (tenantId: string, quota: StorageQuota, delta: number) =>
    quota.storageBytes !== null &&
    storageQuotaExceeded(quota, (storedBytes.get([tenantId]) as { storage_bytes: number } | undefined)?.storage_bytes ?? 0, delta);
  const moveBytes = (tenantId: string, delta: number) => {
    if (delta !== 0) adjustBytes.run([tenantId, delta]);
  };

  const create = db.transaction((r: KnowledgeObjectRecord, quota: StorageQuota): 'ok' | 'quota_exceeded' => {
    if (exceeds(r.tenantId, quota, r.sizeBytes)) return 'quota_exceeded';
    insert.run(objectColumns(r));
    moveBytes(r.tenantId, r.sizeBytes);
    moveCounts(r.tenantId, r.type, null, r);
    return 'ok';
  });

  const update = db.transaction(
    (next: KnowledgeObjectRecord, expect: number, quota: StorageQuota, entries: readonly EnrichmentLogRecord[]): ObjectWriteResult => {
      const row = current.get([next.tenantId, next.id]) as
        { type: string; revision: number; size_bytes: number; status: CountKey['status']; completeness: number } | undefined;
      if (!row) return 'not_found';
      if (row.revision !== expect) return 'conflict';
      const delta = next.sizeBytes - row.size_bytes;
      if (exceeds(next.tenantId, quota, delta)) return 'quota_exceeded';
      const c = objectColumns(next);
      // structure_id … updated_at, then the key and the revision read above (unchanged inside this transaction).
      replace.run([...c.slice(3, 15), c[16], next.tenantId, next.id, expect]);
      entries.forEach((e, i) => insertLog.run(logColumns({ ...e, tenantId: next.tenantId, objectId: next.id }, i)));
      moveBytes(next.tenantId, delta);
      moveCounts(next.tenantId, row.type, { status: row.status, completenessScore: row.completeness }, next);
      return 'ok';
    },
  );

  const remove = db.transaction((tenantId: string, id: string): KnowledgeObjectRecord | null => {
    const row = deleteRow.get([tenantId, id]) as ObjectRow | undefined;
    if (!row) return null;
    deleteLog.run([tenantId, id]);
    moveBytes(tenantId, -row.size_bytes);
    moveCounts(tenantId, row.type, { status: row.status, completenessScore: row.completeness }, null);
    return toObjectRecord(row);
  });

  return {
    async create(record, quota) {
      return create.immediate(record, quota);
    },

    async get(tenantId, id) {
      const row = get.get([tenantId, id]) as ObjectRow | undefined;
      return row ? toObjectRecord(row) : null;
    },

    async list(tenantId, type, q) {
      const { countWhere, countParams, where, params, order } = listQuery(tenantId, type, q);
      // One statement per filter combination (at most eight texts), kept for the connection's life.
      const rows = preparedStatement(
        db,
        `SELECT ${OBJECT_COLUMNS} FROM knowledge_objects WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
      ).all([...params, q.limit, q.offset ?? 0]) as ObjectRow[];
      const { n } = preparedStatement(db, `SELECT COALESCE(SUM(n), 0) AS n FROM knowledge_object_counts WHERE ${countWhere}`).get(
        countParams,
      ) as { n: number };
      return { objects: rows.map(toObjectRecord), total: n };
    },

    async countByType(tenantId) {
      const rows = countsByType.all([tenantId]) as { type: string; n: number }[];
      return Object.fromEntries(rows.map((r) => [r.type, r.n]));
    },

    async update(next, expectRevision, quota, entries = []) {
      if (next.revision !== expectRevision + 1) {
        throw new Error(`knowledge object ${next.id}: revision ${next.revision} does not follow ${expectRevision}`);
      }
      return update.immediate(next, expectRevision, quota, entries);
    },

    async delete(tenantId, id) {
      return remove.immediate(tenantId, id);
    },

    async findByIdentity(tenantId, type, identityKey, limit) {
      return (byIdentity.all([tenantId, type, identityKey, limit]) as ObjectRow[]).map(toObjectRecord);
    },

    async findByIdentityKeys(tenantId, identityKeys, limit) {
      const keys = identityKeys.filter((k) => k !== '');
      if (keys.length === 0 || limit <= 0) return []; // SQLite reads a negative limit as none at all
      const rows = byIdentityKeys.all([tenantId, JSON.stringify(keys), limit]) as Pick<
        ObjectRow,
        'id' | 'type' | 'identity_key' | 'do_not_enrich' | 'enrichment_run_id' | 'enrichment_since'
      >[];
      return rows.map((r): IdentityMatch => ({
        id: r.id,
        type: r.type,
        identityKey: r.identity_key,
        doNotEnrich: r.do_not_enrich === 1,
        enrichment:
          r.enrichment_run_id !== null && r.enrichment_since !== null ? { runId: r.enrichment_run_id, since: r.enrichment_since } : null,
      }));
    },

    async usesVersion(tenantId, type, version) {
      return usesVersion.get([tenantId, type, version]) !== undefined;
    },

    async listNotAtVersion(tenantId, type, version, afterId, limit) {
      return (notAtVersion.all([tenantId, type, afterId ?? '', version, limit]) as ObjectRow[]).map(toObjectRecord);
    },

    async listAll(tenantId, after, limit) {
      const rows = after === null ? allFirst.all([tenantId, limit]) : allAfter.all([tenantId, after.type, after.id, limit]);
      return (rows as ObjectRow[]).map(toObjectRecord);
    },

    async log(tenantId, objectId, page) {
      const where = ['tenant_id = ? AND object_id = ?'];
      const params: unknown[] = [tenantId, objectId];
      if (page.after !== null) {
        const from = logPosition.get([page.after, tenantId, objectId]) as { created_at: string; seq: number; id: string } | undefined;
        if (!from) return null;
        // A row value comparison on the index's trailing columns is one range of it (no OFFSET walk).
        where.push('(created_at, seq, id) > (?, ?, ?)');
        params.push(from.created_at, from.seq, from.id);
      }
      if (page.runId !== null) {
        where.push('run_id = ?');
        params.push(page.runId);
      }
      const sql = `SELECT ${LOG_COLUMNS} FROM knowledge_enrichment_log WHERE ${where.join(' AND ')} ORDER BY created_at, seq, id LIMIT ?`;
      // At most four statement texts (with or without `after`, `runId`), kept for the connection's life.
      return (preparedStatement(db, sql).all([...params, page.limit]) as LogRow[]).map(toLogRecord);
    },
  };
}
