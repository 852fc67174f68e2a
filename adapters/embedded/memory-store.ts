import type { IndexedMemory } from '../../server/ports/search-index.js';
import {
  ConsolidationConflictError,
  DEFAULT_MEMORY_SETTINGS,
  type ApplyWriteOp,
  type ConsolidationPlan,
  type ContradictionPolicy,
  type MemoryCandidate,
  type MemoryListQuery,
  type MemorySettings,
  type MemoryStore,
  type UpdateMemoryOp,
  type VersionSnapshot,
} from '../../server/ports/memories.js';
import { appliedWriteProjection, memoryUpdateProjection } from '../../server/storage-rules/commit-projection.js';
import { deletionUsage } from '../../server/storage-rules/memory-deletion.js';
import { CandidateCache } from './candidate-cache.js';
import {
  MEMORY_COLUMNS,
  HIT_JSON,
  VERSION_COLUMNS,
  CANDIDATE_COLUMNS,
  IS_CANDIDATE,
  toMemoryRecord,
  toHitRecord,
  toCandidate,
  toVersionRecord,
  type HitRow,
  type VersionRow,
  type CandidateRow,
} from './memory-rows.js';
import type { EmbeddedDatabase } from './database.js';
import { whereOf } from './memory-filter-sql.js';

/**
 * Where the memory store writes search index rows, synchronously, inside its own transactions (bound
 * to `writeIndexRows` / `deleteIndexRows` of the embedded search index by the profile).
 */
export interface EmbeddedIndexWriter {
  upsert(tenantId: string, doc: IndexedMemory): void;
  remove(tenantId: string, memoryId: string): void;
}

/**
 * Memory records, versions, settings and the consolidation commit in the embedded libsql database.
 * Statements are prepared once; every write is one transaction (`BEGIN IMMEDIATE`, so a second
 * process waits on the busy timeout instead of failing a snapshot upgrade).
 */
export function createEmbeddedMemoryStore(db: EmbeddedDatabase, index: EmbeddedIndexWriter): MemoryStore {
  const get = db.prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE tenant_id = ? AND id = ?`).raw(true);
  // `+tenant_id` keeps SQLite on primary-key lookups; with a plain `tenant_id = ?` it walks the tenant
  // index over every memory of the tenant (O(tenant size) per search result page).
  const getManyStmt = db
    .prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE +tenant_id = ? AND id IN (SELECT value FROM json_each(?))`)
    .raw(true);
  const getHitsStmt = db
    .prepare(`SELECT json_group_array(${HIT_JSON}) FROM memories WHERE +tenant_id = ? AND id IN (SELECT value FROM json_each(?))`)
    .raw(true);
  // Keyset pages of the memories_tenant_created index (a row value comparison is one range of it).
  const listFirst = db
    .prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE tenant_id = ? AND merged_into IS NULL ORDER BY created_at DESC, id DESC LIMIT ?`)
    .raw(true);
  const listAfterKey = db
    .prepare(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE tenant_id = ? AND merged_into IS NULL AND (created_at, id) < (?, ?)
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    )
    .raw(true);
  const listAllFirst = db
    .prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE tenant_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`)
    .raw(true);
  const listAllAfterKey = db
    .prepare(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE tenant_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
    )
    .raw(true);
  const versions = db.prepare(`SELECT ${VERSION_COLUMNS} FROM memory_versions WHERE tenant_id = ? AND memory_id = ? ORDER BY version`);
  const version = db.prepare(`SELECT ${VERSION_COLUMNS} FROM memory_versions WHERE tenant_id = ? AND memory_id = ? AND version = ?`);
  const deleteRow = db.prepare('DELETE FROM memories WHERE tenant_id = ? AND id = ? RETURNING size_bytes, merged_into');
  const mergedInto = db.prepare('SELECT id FROM memories WHERE tenant_id = ? AND merged_into = ?');
  const deleteVersions = db.prepare('DELETE FROM memory_versions WHERE tenant_id = ? AND memory_id = ?');
  const deleteWrites = db.prepare('DELETE FROM memory_writes WHERE tenant_id = ? AND memory_id = ?');
  const deleteSubjects = db.prepare('DELETE FROM memory_subjects WHERE memory_id = ?');
  /** One statement per memory for all its subject keys (at most 8), by key count. */
  const insertSubjects = new Map<number, ReturnType<EmbeddedDatabase['prepare']>>();
  const insertSubjectsOf = (tenantId: string, namespace: string, subjects: readonly string[], at: string, memoryId: string) => {
    const keys = [...new Set(subjects)];
    if (keys.length === 0) return;
    let stmt = insertSubjects.get(keys.length);
    if (!stmt) {
      stmt = db.prepare(
        `INSERT OR IGNORE INTO memory_subjects (tenant_id, namespace, subject, committed_at, memory_id) VALUES ${Array(keys.length).fill('(?, ?, ?, ?, ?)').join(', ')}`,
      );
      insertSubjects.set(keys.length, stmt);
    }
    stmt.run(keys.flatMap((k) => [tenantId, namespace, k, at, memoryId]));
  };
  // Candidate lookups return ids and committed versions only; content comes from `candidateCache`
  // or, for the ones it lacks, one read of `candidateRows` (see candidate-cache.ts).
  const bySubject = db
    .prepare(
      `SELECT m.id, m.committed_version FROM memory_subjects s JOIN memories m ON m.id = s.memory_id
    WHERE s.tenant_id = ? AND s.namespace = ? AND s.subject = ?
      AND m.tenant_id = s.tenant_id AND ${IS_CANDIDATE}
    ORDER BY s.committed_at DESC LIMIT ?`,
    )
    .raw(true);
  const adjustTotals = db.prepare(`INSERT INTO usage_totals (tenant_id, memory_count, storage_bytes) VALUES (?, ?, ?)
    ON CONFLICT (tenant_id) DO UPDATE SET memory_count = memory_count + excluded.memory_count, storage_bytes = storage_bytes + excluded.storage_bytes`);
  const consumeWrite = db.prepare('DELETE FROM memory_writes WHERE id = ? AND tenant_id = ? AND memory_id = ? AND version = ?');
  const insertVersion = db.prepare(`INSERT INTO memory_versions (memory_id, version, tenant_id, change, title, content, tags, type,
      agent_id, metadata, sensitivity, status, rolled_back_to, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const applyDerived = db.prepare(`UPDATE memories SET
      committed_version = ?, pending_count = pending_count - 1,
      sensitivity = CASE WHEN head_version = ? THEN ? ELSE sensitivity END,
      sensitivity_reasons = CASE WHEN head_version = ? THEN ? ELSE sensitivity_reasons END,
      status = ?, injection_flagged = ?, injection_score = ?, injection_patterns = ?, quality = ?,
      contradiction_status = ?, contradiction_policy = ?, conflicts_with = ?, superseded_by = ?, merged_into = ?,
      fingerprint = ?, updated_at = ?, committed_at = ?
    WHERE tenant_id = ? AND id = ? AND committed_version = ? AND pending_count > 0`);
  const updateOther = db.prepare(`UPDATE memories SET
      head_version = ?, committed_version = ?, status = ?, contradiction_status = ?, contradiction_policy = ?,
      conflicts_with = ?, superseded_by = ?, updated_at = ?
    WHERE tenant_id = ? AND id = ? AND committed_version = ? AND head_version = committed_version AND pending_count = 0`);
  const byFingerprint = db
    .prepare(
      `SELECT id, committed_version FROM memories m
    WHERE tenant_id = ? AND namespace = ? AND fingerprint = ? AND ${IS_CANDIDATE}
    ORDER BY committed_at DESC LIMIT ?`,
    )
    .raw(true);
  // The same conditions as the lookups: a memory that changed since (a write queued, a delete) is no
  // longer a candidate, and a row read here is always a committed version's content.
  const candidateRows = db.prepare(`SELECT ${CANDIDATE_COLUMNS} FROM memories m
    WHERE +tenant_id = ? AND id IN (SELECT value FROM json_each(?)) AND ${IS_CANDIDATE}`);
  const candidateCache = new CandidateCache();
  const getSettings = db.prepare('SELECT contradiction_policy, updated_at FROM memory_settings WHERE tenant_id = ?');
  const putSettings = db.prepare(`INSERT INTO memory_settings (tenant_id, contradiction_policy, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (tenant_id) DO UPDATE SET contradiction_policy = excluded.contradiction_policy, updated_at = excluded.updated_at`);
  const insertSnapshot = (tenantId: string, memoryId: string, v: number, s: VersionSnapshot) => {
    insertVersion.run([
      memoryId,
      v,
      tenantId,
      s.change,
      s.title,
      s.content,
      JSON.stringify(s.tags),
      s.type,
      s.agentId,
      JSON.stringify(s.metadata),
      s.sensitivity,
      s.status,
      s.rolledBackTo,
      s.createdAt,
    ]);
  };

  const applyWrite = (tenantId: string, op: ApplyWriteOp, at: string) => {
    if (consumeWrite.run([op.writeId, tenantId, op.memoryId, op.version]).changes !== 1) {
      throw new ConsolidationConflictError(`write ${op.writeId} of memory ${op.memoryId} is no longer queued`);
    }
    const p = appliedWriteProjection(op, at);
    const d = p.set;
    const updated = applyDerived.run([
      p.committedVersion,
      p.committedVersion,
      p.atHeadOnly.sensitivity,
      p.committedVersion,
      JSON.stringify(p.atHeadOnly.sensitivityReasons),
      d.status,
      d.injectionFlagged ? 1 : 0,
      d.injectionScore,
      JSON.stringify(d.injectionPatterns),
      d.quality,
      d.contradictionStatus,
      d.contradictionPolicy,
      JSON.stringify(d.conflictsWith),
      d.supersededBy,
      d.mergedInto,
      d.fingerprint,
      p.at,
      p.at,
      tenantId,
      op.memoryId,
      op.version - 1,
    ]);
    if (updated.changes !== 1) throw new ConsolidationConflictError(`memory ${op.memoryId} is not at version ${op.version - 1}`);
    insertSnapshot(tenantId, op.memoryId, op.version, op.snapshot);
    // Keys are written only here, so a memory's first version has none to delete.
    if (op.version > 1) deleteSubjects.run([op.memoryId]);
    if (p.subjects.length > 0) insertSubjectsOf(tenantId, op.namespace, p.subjects, at, op.memoryId);
    if (op.usage && (op.usage.memories !== 0 || op.usage.bytes !== 0)) adjustTotals.run([tenantId, op.usage.memories, op.usage.bytes]);
  };

  const updateMemory = (tenantId: string, op: UpdateMemoryOp, at: string) => {
    const p = memoryUpdateProjection(op, at);
    const s = p.set;
    const updated = updateOther.run([
      p.version,
      p.version,
      s.status,
      s.contradictionStatus,
      s.contradictionPolicy,
      JSON.stringify(s.conflictsWith),
      s.supersededBy,
      p.at,
      tenantId,
      op.memoryId,
      op.expectCommittedVersion,
    ]);
    if (updated.changes !== 1) {
      throw new ConsolidationConflictError(
        `memory ${op.memoryId} changed since consolidation planned (expected version ${op.expectCommittedVersion}, nothing queued)`,
      );
    }
    if (op.snapshot && p.snapshotVersion !== null) insertSnapshot(tenantId, op.memoryId, p.snapshotVersion, op.snapshot);
    if (p.dropSubjects) deleteSubjects.run([op.memoryId]);
  };

  const commit = db.transaction((tenantId: string, plan: ConsolidationPlan) => {
    for (const op of plan.ops) {
      if (op.kind === 'apply') applyWrite(tenantId, op, plan.at);
      else updateMemory(tenantId, op, plan.at);
    }
    for (const memoryId of plan.indexRemovals) index.remove(tenantId, memoryId);
    for (const doc of plan.indexUpserts) index.upsert(tenantId, doc);
  });

  const purge = (tenantId: string, memoryId: string): { size_bytes: number; merged_into: string | null } | undefined => {
    const row = deleteRow.get([tenantId, memoryId]) as { size_bytes: number; merged_into: string | null } | undefined;
    if (!row) return undefined;
    deleteVersions.run([tenantId, memoryId]);
    deleteWrites.run([tenantId, memoryId]);
    deleteSubjects.run([memoryId]);
    index.remove(tenantId, memoryId);
    candidateCache.delete(memoryId);
    return row;
  };

  /** The delete cascade of `memory-deletion.ts`: the memory, then the duplicates merged into it. */
  const remove = db.transaction((tenantId: string, memoryId: string): boolean => {
    const row = purge(tenantId, memoryId);
    if (!row) return false;
    const usage = deletionUsage({ sizeBytes: row.size_bytes, mergedInto: row.merged_into });
    if (usage) adjustTotals.run([tenantId, usage.memories, usage.bytes]);
    for (const { id } of mergedInto.all([tenantId, memoryId]) as { id: string }[]) purge(tenantId, id);
    return true;
  });

  return {
    async get(tenantId, memoryId) {
      const row = get.get([tenantId, memoryId]) as unknown[] | undefined;
      return row ? toMemoryRecord(row) : null;
    },

    async getHits(tenantId, memoryIds) {
      if (memoryIds.length === 0) return [];
      const [page] = getHitsStmt.get([tenantId, JSON.stringify(memoryIds)]) as [string];
      return (JSON.parse(page) as HitRow[]).map(toHitRecord);
    },

    async getMany(tenantId, memoryIds) {
      if (memoryIds.length === 0) return [];
      // One prepared statement for any number of ids (figures: docs/performance.md#prepared-statements-kept).
      return (getManyStmt.all([tenantId, JSON.stringify(memoryIds)]) as unknown[][]).map(toMemoryRecord);
    },

    async list(tenantId, q: MemoryListQuery) {
      const where = whereOf(tenantId, q);
      if (!where) return { items: [], total: 0 };
      const { n } = db.prepare(`SELECT COUNT(*) AS n FROM memories WHERE ${where.clause}`).get(where.params) as { n: number };
      const rows = db
        .prepare(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE ${where.clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
        .raw(true)
        .all([...where.params, q.limit, q.offset]) as unknown[][];
      return { items: rows.map(toMemoryRecord), total: n };
    },

    async count(tenantId, q) {
      const where = whereOf(tenantId, q);
      if (!where) return 0;
      return (db.prepare(`SELECT COUNT(*) AS n FROM memories WHERE ${where.clause}`).get(where.params) as { n: number }).n;
    },

    async matchingIds(tenantId, q, limit) {
      const where = whereOf(tenantId, q);
      if (!where || limit <= 0) return [];
      const rows = db
        .prepare(`SELECT id FROM memories WHERE ${where.clause} ORDER BY created_at DESC, id DESC LIMIT ?`)
        .all([...where.params, limit]) as { id: string }[];
      return rows.map((r) => r.id);
    },

    async listAfter(tenantId, after, limit, options) {
      const [first, next] = options?.includeMerged ? [listAllFirst, listAllAfterKey] : [listFirst, listAfterKey];
      const rows = (after ? next.all([tenantId, after.createdAt, after.id, limit]) : first.all([tenantId, limit])) as unknown[][];
      return rows.map(toMemoryRecord);
    },

    async listVersions(tenantId, memoryId) {
      return (versions.all([tenantId, memoryId]) as VersionRow[]).map(toVersionRecord);
    },

    async getVersion(tenantId, memoryId, v) {
      const row = version.get([tenantId, memoryId, v]) as VersionRow | undefined;
      return row ? toVersionRecord(row) : null;
    },

    async delete(tenantId, memoryId) {
      return remove.immediate(tenantId, memoryId);
    },

    async findCandidates(tenantId, q) {
      const wanted = new Map<string, number>(); // id → committed version, in lookup order
      const exclude = new Set(q.excludeIds ?? []);
      if (q.fingerprint) {
        for (const [id, version] of byFingerprint.all([tenantId, q.namespace, q.fingerprint, q.limit]) as [string, number][]) {
          if (!exclude.has(id)) wanted.set(id, version);
        }
      }
      // Keys in the caller's order (most specific first), each a bounded newest-first range scan.
      for (const subject of [...new Set(q.subjects ?? [])].slice(0, 16)) {
        if (wanted.size >= q.limit) break;
        for (const [id, version] of bySubject.all([tenantId, q.namespace, subject, q.limit + exclude.size]) as [string, number][]) {
          if (wanted.size >= q.limit) break;
          if (!exclude.has(id) && !wanted.has(id)) wanted.set(id, version);
        }
      }
      const found = new Map<string, MemoryCandidate>();
      const missing: string[] = [];
      for (const [id, version] of wanted) {
        const held = candidateCache.get(id, version);
        if (held) found.set(id, held);
        else missing.push(id);
      }
      if (missing.length > 0) {
        for (const row of candidateRows.all([tenantId, JSON.stringify(missing)]) as CandidateRow[])
          found.set(row.id, candidateCache.put(toCandidate(row)));
      }
      // In lookup order; a memory that stopped being a candidate between the two reads is left out.
      const out: MemoryCandidate[] = [];
      for (const id of wanted.keys()) {
        const c = found.get(id);
        if (c) out.push(c);
      }
      return out;
    },

    async commitConsolidation(tenantId, plan) {
      commit.immediate(tenantId, plan);
    },

    async getSettings(tenantId): Promise<MemorySettings> {
      const row = getSettings.get([tenantId]) as { contradiction_policy: ContradictionPolicy; updated_at: string } | undefined;
      return row ? { contradictionPolicy: row.contradiction_policy, updatedAt: row.updated_at } : { ...DEFAULT_MEMORY_SETTINGS };
    },

    async putSettings(tenantId, settings, at) {
      putSettings.run([tenantId, settings.contradictionPolicy, at]);
      return { contradictionPolicy: settings.contradictionPolicy, updatedAt: at };
    },
  };
}
