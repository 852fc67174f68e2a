import type { ActivateResult, KnowledgeStructureStore, SaveDraftResult, StructureRecord } from '../../server/ports/knowledge.js';
import type { StructureStatus } from '../../server/services/knowledge/model.js';
import type { EmbeddedDatabase } from './database.js';

interface StructureRow {
  id: string;
  tenant_id: string;
  type: string;
  version: string;
  status: StructureStatus;
  schema: string;
  created_at: string;
  activated_at: string | null;
}

const COLUMNS = 'id, tenant_id, type, version, status, schema, created_at, activated_at';

function toRecord(r: StructureRow): StructureRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    type: r.type,
    version: r.version,
    status: r.status,
    schema: JSON.parse(r.schema) as StructureRecord['schema'],
    createdAt: r.created_at,
    activatedAt: r.activated_at,
  };
}

/**
 * Published structure versions in the embedded libsql database. Writes that read before they write
 * are one `BEGIN IMMEDIATE` transaction, so two processes cannot both see a version as a DRAFT.
 */
export function createEmbeddedKnowledgeStructureStore(db: EmbeddedDatabase): KnowledgeStructureStore {
  const list = db.prepare(`SELECT ${COLUMNS} FROM knowledge_structures WHERE tenant_id = ? AND type = ? ORDER BY created_at, id`);
  const get = db.prepare(`SELECT ${COLUMNS} FROM knowledge_structures WHERE tenant_id = ? AND type = ? AND version = ?`);
  const types = db.prepare('SELECT DISTINCT type FROM knowledge_structures WHERE tenant_id = ? ORDER BY type');
  const statusOf = db.prepare('SELECT status FROM knowledge_structures WHERE tenant_id = ? AND type = ? AND version = ?');
  const activeVersion = db.prepare("SELECT version FROM knowledge_structures WHERE tenant_id = ? AND type = ? AND status = 'ACTIVE'");
  const insert = db.prepare(`INSERT INTO knowledge_structures (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const replaceSchema = db.prepare(
    "UPDATE knowledge_structures SET schema = ? WHERE tenant_id = ? AND type = ? AND version = ? AND status = 'DRAFT'",
  );
  const deprecateOthers = db.prepare(
    "UPDATE knowledge_structures SET status = 'DEPRECATED' WHERE tenant_id = ? AND type = ? AND status = 'ACTIVE' AND version <> ?",
  );
  // An already ACTIVE version keeps the time it was activated: activating it again changes nothing.
  const makeActive = db.prepare(
    "UPDATE knowledge_structures SET status = 'ACTIVE', activated_at = ? WHERE tenant_id = ? AND type = ? AND version = ? AND status <> 'ACTIVE'",
  );

  const saveDraft = db.transaction((r: StructureRecord): SaveDraftResult => {
    const existing = statusOf.get([r.tenantId, r.type, r.version]) as { status: StructureStatus } | undefined;
    const schema = JSON.stringify(r.schema);
    if (!existing) {
      insert.run([r.id, r.tenantId, r.type, r.version, 'DRAFT', schema, r.createdAt, null]);
      return 'created';
    }
    if (existing.status !== 'DRAFT') return 'not_draft';
    replaceSchema.run([schema, r.tenantId, r.type, r.version]);
    return 'replaced';
  });

  const activate = db.transaction(
    (tenantId: string, type: string, version: string, at: string, expected: string | null): ActivateResult => {
      if (!statusOf.get([tenantId, type, version])) return 'not_found';
      const current = (activeVersion.get([tenantId, type]) as { version: string } | undefined)?.version ?? null;
      if (current !== expected && current !== version) return 'changed';
      deprecateOthers.run([tenantId, type, version]);
      makeActive.run([at, tenantId, type, version]);
      return 'ok';
    },
  );

  return {
    async list(tenantId, type) {
      return (list.all([tenantId, type]) as StructureRow[]).map(toRecord);
    },
    async types(tenantId) {
      return (types.all([tenantId]) as { type: string }[]).map((r) => r.type);
    },
    async get(tenantId, type, version) {
      const row = get.get([tenantId, type, version]) as StructureRow | undefined;
      return row ? toRecord(row) : null;
    },
    async saveDraft(record) {
      return saveDraft.immediate(record);
    },
    async activate(tenantId, type, version, at, expectedActive) {
      return activate.immediate(tenantId, type, version, at, expectedActive);
    },
  };
}
