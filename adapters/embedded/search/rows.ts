import { forgetStatementsNaming, preparedStatement } from '../statement-cache.js';
import type { EmbeddedDatabase } from '../database.js';
import { countTerms } from '../../../server/text/term-counts.js';
import { encodeTermCounts } from './stored-term-counts.js';
import { EmbeddingModelMismatchError, type IndexInfo, type IndexedMemory } from '../../../server/ports/search-index.js';

/**
 * Synchronous writes of the search index rows, usable inside a caller's libsql transaction
 * (`db.transaction(() => { ...; writeIndexRows(db, tenantId, doc); })()`). They never start or commit
 * a transaction themselves and never await; compute embeddings and entities before the transaction.
 */

/** Most entities linked per memory; co-occurrence edges grow with its square. */
export const MAX_ENTITIES_PER_DOC = 16;
/** Rows kept in `search_changes`; older ones are pruned and caches older than that reload. */
const CHANGE_LOG_WINDOW = 200_000;
const PRUNE_EVERY = 5_000;

interface Statements {
  getMeta: ReturnType<EmbeddedDatabase['prepare']>;
  setMeta: ReturnType<EmbeddedDatabase['prepare']>;
  tenantKey: ReturnType<EmbeddedDatabase['prepare']>;
  insertTenant: ReturnType<EmbeddedDatabase['prepare']>;
  bumpTenantCount: ReturnType<EmbeddedDatabase['prepare']>;
  findDoc: ReturnType<EmbeddedDatabase['prepare']>;
  insertDoc: ReturnType<EmbeddedDatabase['prepare']>;
  updateDoc: ReturnType<EmbeddedDatabase['prepare']>;
  deleteDoc: ReturnType<EmbeddedDatabase['prepare']>;
  upsertVector: ReturnType<EmbeddedDatabase['prepare']>;
  deleteVector: ReturnType<EmbeddedDatabase['prepare']>;
  logChange: ReturnType<EmbeddedDatabase['prepare']>;
  docEntities: ReturnType<EmbeddedDatabase['prepare']>;
  upsertEntity: ReturnType<EmbeddedDatabase['prepare']>;
  decEntity: ReturnType<EmbeddedDatabase['prepare']>;
  dropEmptyEntity: ReturnType<EmbeddedDatabase['prepare']>;
  insertMention: ReturnType<EmbeddedDatabase['prepare']>;
  deleteMentions: ReturnType<EmbeddedDatabase['prepare']>;
  incEdge: ReturnType<EmbeddedDatabase['prepare']>;
  decEdge: ReturnType<EmbeddedDatabase['prepare']>;
  dropEmptyEdges: ReturnType<EmbeddedDatabase['prepare']>;
}

const cache = new WeakMap<EmbeddedDatabase, Statements>();

function statements(db: EmbeddedDatabase): Statements {
  let s = cache.get(db);
  if (s) return s;
  s = {
    getMeta: db.prepare('SELECT value FROM search_meta WHERE key = ?'),
    setMeta: db.prepare('INSERT INTO search_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    tenantKey: db.prepare('SELECT tenant_key FROM search_tenants WHERE tenant_id = ?'),
    insertTenant: db.prepare('INSERT INTO search_tenants (tenant_id) VALUES (?) RETURNING tenant_key'),
    bumpTenantCount: db.prepare('UPDATE search_tenants SET doc_count = doc_count + ? WHERE tenant_id = ?'),
    findDoc: db.prepare('SELECT doc_id FROM search_docs WHERE tenant_id = ? AND memory_id = ?'),
    insertDoc: db.prepare(
      `INSERT INTO search_docs (tenant_id, memory_id, namespace, agent_id, status, injection_flagged, quality, created_at, terms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    updateDoc: db.prepare(
      `UPDATE search_docs SET namespace = ?, agent_id = ?, status = ?, injection_flagged = ?, quality = ?, created_at = ?, terms = ?
       WHERE doc_id = ?`,
    ),
    deleteDoc: db.prepare('DELETE FROM search_docs WHERE doc_id = ?'),
    upsertVector: db.prepare(
      'INSERT INTO search_vectors (doc_id, tenant_id, vector) VALUES (?, ?, ?) ON CONFLICT (doc_id) DO UPDATE SET vector = excluded.vector',
    ),
    deleteVector: db.prepare('DELETE FROM search_vectors WHERE doc_id = ?'),
    // Inserts read their new key from `run`'s lastInsertRowid: `RETURNING` through `get` costs about
    // three times as much per row in libsql.
    logChange: db.prepare('INSERT INTO search_changes (tenant_id, doc_id) VALUES (?, ?)'),
    docEntities: db.prepare('SELECT entity_id FROM search_mentions WHERE doc_id = ?'),
    upsertEntity: db.prepare(
      `INSERT INTO search_entities (tenant_id, key, name, type, doc_count) VALUES (?, ?, ?, ?, 1)
       ON CONFLICT (tenant_id, key) DO UPDATE SET doc_count = doc_count + 1 RETURNING entity_id`,
    ),
    decEntity: db.prepare('UPDATE search_entities SET doc_count = doc_count - 1 WHERE entity_id = ?'),
    dropEmptyEntity: db.prepare('DELETE FROM search_entities WHERE entity_id = ? AND doc_count <= 0'),
    insertMention: db.prepare('INSERT OR IGNORE INTO search_mentions (entity_id, doc_id) VALUES (?, ?)'),
    deleteMentions: db.prepare('DELETE FROM search_mentions WHERE doc_id = ?'),
    incEdge: db.prepare('INSERT INTO search_edges (a, b, weight) VALUES (?, ?, 1) ON CONFLICT (a, b) DO UPDATE SET weight = weight + 1'),
    decEdge: db.prepare('UPDATE search_edges SET weight = weight - 1 WHERE a = ? AND b = ?'),
    dropEmptyEdges: db.prepare('DELETE FROM search_edges WHERE a = ? AND weight <= 0'),
  };
  cache.set(db, s);
  return s;
}

const infoCache = new WeakMap<EmbeddedDatabase, IndexInfo>();

/**
 * Index writes made through each connection of this process. SQLite's `PRAGMA data_version` tells a
 * connection that another one committed, never that it committed itself; with this counter a reader
 * knows that nothing of the index can have changed since it last looked (see `EmbeddedSearchIndex`).
 */
const localWrites = new WeakMap<EmbeddedDatabase, number>();

export function localIndexWrites(db: EmbeddedDatabase): number {
  return localWrites.get(db) ?? 0;
}

function noteLocalWrite(db: EmbeddedDatabase): void {
  localWrites.set(db, localIndexWrites(db) + 1);
}

export function readIndexInfo(db: EmbeddedDatabase): IndexInfo | null {
  const s = statements(db);
  const model = s.getMeta.get(['embedding_model']) as { value: string } | undefined;
  const dim = s.getMeta.get(['embedding_dimension']) as { value: string } | undefined;
  if (!model || !dim) return null;
  return { model: model.value, dimension: Number(dim.value) };
}

/**
 * Records the embedding model and dimension on first use; afterwards refuses a different one with an
 * `EmbeddingModelMismatchError` that names both and points at `tenant-memory reindex`.
 */
export function ensureIndexInfo(db: EmbeddedDatabase, configured: IndexInfo): IndexInfo {
  if (!configured.model || !Number.isInteger(configured.dimension) || configured.dimension <= 0) {
    throw new Error(`invalid embedding configuration: model "${configured.model}", dimension ${configured.dimension}`);
  }
  const recorded = readIndexInfo(db);
  if (recorded) {
    if (recorded.model !== configured.model || recorded.dimension !== configured.dimension) {
      throw new EmbeddingModelMismatchError(recorded, configured);
    }
    return recorded;
  }
  const s = statements(db);
  db.transaction(() => {
    s.setMeta.run(['embedding_model', configured.model]);
    s.setMeta.run(['embedding_dimension', String(configured.dimension)]);
  })();
  return { ...configured };
}

/**
 * For `tenant-memory reindex`: forgets every stored vector and records the new model and dimension.
 * Keyword and graph rows stay; the caller re-embeds every memory and calls `writeIndexRows` again.
 * In-process tenant caches reload (the change-log floor moves past every existing entry).
 */
export function resetIndexForModel(db: EmbeddedDatabase, info: IndexInfo): void {
  const s = statements(db);
  db.transaction(() => {
    db.exec('DELETE FROM search_vectors');
    s.setMeta.run(['embedding_model', info.model]);
    s.setMeta.run(['embedding_dimension', String(info.dimension)]);
    // Cleared by `completeReindex` once every memory was written again; until then start-up refuses.
    s.setMeta.run(['reindex_incomplete', '1']);
    infoCache.delete(db);
    const max = db.prepare('SELECT COALESCE(MAX(seq), 0) AS m FROM search_changes').get() as { m: number };
    s.setMeta.run(['changes_floor', String(max.m + 1)]);
    noteLocalWrite(db);
  })();
}

/** True while a reset by `resetIndexForModel` has not been followed by `markReindexComplete`. */
export function readReindexIncomplete(db: EmbeddedDatabase): boolean {
  const row = statements(db).getMeta.get(['reindex_incomplete']) as { value: string } | undefined;
  return row?.value === '1';
}

export function markReindexComplete(db: EmbeddedDatabase): void {
  statements(db).setMeta.run(['reindex_incomplete', '0']);
}

/** The tenant's FTS5 table name, or null when the tenant has none yet (and `create` is false). */
export function ftsTable(db: EmbeddedDatabase, tenantId: string, create: boolean): string | null {
  const s = statements(db);
  const row = s.tenantKey.get([tenantId]) as { tenant_key: number } | undefined;
  if (row) return `search_fts_t${row.tenant_key}`;
  if (!create) return null;
  const { tenant_key } = s.insertTenant.get([tenantId]) as { tenant_key: number };
  const name = `search_fts_t${tenant_key}`;
  db.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${name} USING fts5(title, content, tags, ` +
      `tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1)`,
  );
  return name;
}

function fts(db: EmbeddedDatabase, table: string) {
  return {
    insert: preparedStatement(db, `INSERT INTO ${table} (rowid, title, content, tags) VALUES (?, ?, ?, ?)`),
    remove: preparedStatement(db, `DELETE FROM ${table} WHERE rowid = ?`),
  };
}

function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function logChange(db: EmbeddedDatabase, s: Statements, tenantId: string, docId: number): void {
  noteLocalWrite(db);
  const seq = Number(s.logChange.run([tenantId, docId]).lastInsertRowid);
  if (seq % PRUNE_EVERY === 0 && seq > CHANGE_LOG_WINDOW) {
    const floor = seq - CHANGE_LOG_WINDOW;
    db.prepare('DELETE FROM search_changes WHERE seq < ?').run([floor]);
    s.setMeta.run(['changes_floor', String(floor)]);
  }
}

function unlinkEntities(s: Statements, docId: number): void {
  const old = (s.docEntities.all([docId]) as { entity_id: number }[]).map((r) => r.entity_id);
  if (old.length === 0) return;
  for (let i = 0; i < old.length; i++) {
    for (let j = 0; j < old.length; j++) if (i !== j) s.decEdge.run([old[i]!, old[j]!]);
  }
  for (const e of old) s.dropEmptyEdges.run([e]);
  s.deleteMentions.run([docId]);
  for (const e of old) {
    s.decEntity.run([e]);
    s.dropEmptyEntity.run([e]);
  }
}

function linkEntities(s: Statements, tenantId: string, docId: number, doc: IndexedMemory): void {
  const seen = new Set<string>();
  const ids: number[] = [];
  for (const e of doc.entities) {
    if (ids.length >= MAX_ENTITIES_PER_DOC) break;
    if (!e.key || seen.has(e.key)) continue;
    seen.add(e.key);
    const { entity_id } = s.upsertEntity.get([tenantId, e.key, e.name || e.key, e.type]) as { entity_id: number };
    s.insertMention.run([entity_id, docId]);
    ids.push(entity_id);
  }
  for (let i = 0; i < ids.length; i++) {
    for (let j = 0; j < ids.length; j++) if (i !== j) s.incEdge.run([ids[i]!, ids[j]!]);
  }
}

/**
 * Inserts or replaces every index row of one memory: filter columns and term counts, FTS text, vector,
 * entity links and co-occurrence edges, plus a change-log entry. Synchronous; safe inside the caller's
 * transaction. Throws when the vector's length differs from the recorded dimension.
 */
export function writeIndexRows(db: EmbeddedDatabase, tenantId: string, doc: IndexedMemory): void {
  const s = statements(db);
  if (doc.vector) {
    let info = infoCache.get(db) ?? null;
    if (!info) {
      info = readIndexInfo(db);
      if (info) infoCache.set(db, info);
    }
    if (info && doc.vector.length !== info.dimension) {
      throw new Error(
        `vector of memory ${doc.memoryId} has ${doc.vector.length} dimensions; the search index holds ${info.dimension}-dimensional vectors of model "${info.model}"`,
      );
    }
  }
  const table = fts(db, ftsTable(db, tenantId, true)!);
  const flagged = doc.injectionFlagged ? 1 : 0;
  const quality = Number.isFinite(doc.quality) ? Math.min(1, Math.max(0, doc.quality)) : 0;
  const terms = encodeTermCounts(countTerms(doc));
  const existing = s.findDoc.get([tenantId, doc.memoryId]) as { doc_id: number } | undefined;
  let docId: number;
  if (existing) {
    docId = existing.doc_id;
    s.updateDoc.run([doc.namespace, doc.agentId, doc.status, flagged, quality, doc.createdAt, terms, docId]);
    table.remove.run([docId]);
    unlinkEntities(s, docId);
  } else {
    docId = Number(
      s.insertDoc.run([tenantId, doc.memoryId, doc.namespace, doc.agentId, doc.status, flagged, quality, doc.createdAt, terms])
        .lastInsertRowid,
    );
    s.bumpTenantCount.run([1, tenantId]);
  }
  table.insert.run([docId, doc.title, doc.content, doc.tags.join(' ')]);
  if (doc.vector) s.upsertVector.run([docId, tenantId, vectorBlob(doc.vector)]);
  else if (existing) s.deleteVector.run([docId]);
  linkEntities(s, tenantId, docId, doc);
  logChange(db, s, tenantId, docId);
}

/** Removes every index row of one memory; returns whether it was indexed. Synchronous. */
export function deleteIndexRows(db: EmbeddedDatabase, tenantId: string, memoryId: string): boolean {
  const s = statements(db);
  const existing = s.findDoc.get([tenantId, memoryId]) as { doc_id: number } | undefined;
  if (!existing) return false;
  const docId = existing.doc_id;
  const table = ftsTable(db, tenantId, false);
  if (table) fts(db, table).remove.run([docId]);
  s.deleteVector.run([docId]);
  unlinkEntities(s, docId);
  s.deleteDoc.run([docId]);
  s.bumpTenantCount.run([-1, tenantId]);
  logChange(db, s, tenantId, docId);
  return true;
}

/** Removes every index row of a tenant. Synchronous. */
export function deleteTenantRows(db: EmbeddedDatabase, tenantId: string): void {
  const run = (sql: string) => db.prepare(sql).run([tenantId]);
  const table = ftsTable(db, tenantId, false);
  if (table) {
    forgetStatementsNaming(db, table);
    db.exec(`DROP TABLE IF EXISTS ${table}`);
    db.prepare('DELETE FROM search_tenants WHERE tenant_id = ?').run([tenantId]);
  }
  run('DELETE FROM search_vectors WHERE tenant_id = ?');
  run('DELETE FROM search_edges WHERE a IN (SELECT entity_id FROM search_entities WHERE tenant_id = ?)');
  run('DELETE FROM search_mentions WHERE entity_id IN (SELECT entity_id FROM search_entities WHERE tenant_id = ?)');
  run('DELETE FROM search_entities WHERE tenant_id = ?');
  run('DELETE FROM search_docs WHERE tenant_id = ?');
  // One change entry with doc_id 0 tells caches of this tenant to reload.
  noteLocalWrite(db);
  db.prepare('INSERT INTO search_changes (tenant_id, doc_id) VALUES (?, 0)').run([tenantId]);
}
