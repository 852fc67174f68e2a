/**
 * The Knowledge API's collections on MongoDB (see server/ports/knowledge.ts), created at start-up with
 * the indexes declared here, each serving one query of the port so a list page is one index range:
 *  - `knowledge_structures`: `_id` = `ks_id`; unique (tenantId, type, version).
 *  - `knowledge_objects`: `_id` = object id; the two list orders, with and without the status filter;
 *    identity and version look-ups, (tenantId, identityKey) across types for the re-enrichment after
 *    consolidation; (tenantId, type, _id) for a migration's pages.
 *  - `knowledge_object_counts`: live objects per (tenant, type, status, score), moved in each write's
 *    transaction (`countMoves`), so a list's `total` sums a few documents instead of counting every object.
 *    `_id` is the key itself, so two transactions creating the same count conflict and one retries.
 *  - `knowledge_enrichment_log`: append-only; read per object oldest first.
 *  - `knowledge_settings`: `_id` = tenant id; one document per tenant that saved its settings.
 *
 * Schemas, field values and the log's values are stored as JSON text: their keys come from clients and
 * may start with `$` or contain `.`, which MongoDB field names must not (and nothing queries inside them).
 */
import type { Collection, Db } from 'mongodb';
import type { EnrichmentLogRecord, KnowledgeObjectRecord, StructureRecord } from '../../server/ports/knowledge.js';
import { ensureCollections } from './collections-setup.js';

export interface StructureDoc extends Omit<StructureRecord, 'id' | 'schema'> {
  _id: string;
  schema: string;
}

export interface ObjectDoc extends Omit<KnowledgeObjectRecord, 'id' | 'fields'> {
  _id: string;
  fields: string;
}

export interface LogDoc extends Omit<EnrichmentLogRecord, 'id' | 'candidateValue' | 'previousValue'> {
  _id: string;
  candidateValue: string | null;
  previousValue: string | null;
  /** The entry's place in the batch it was appended with: one run's entries stamped alike keep their order. */
  seq: number;
}

export interface CountDoc {
  _id: string;
  tenantId: string;
  type: string;
  status: ObjectDoc['status'];
  completenessScore: number;
  n: number;
}

export interface SettingsDoc {
  /** The tenant id. */
  _id: string;
  webEnrichment: boolean;
  updatedAt: string;
}

export interface KnowledgeCollections {
  structures: Collection<StructureDoc>;
  objects: Collection<ObjectDoc>;
  counts: Collection<CountDoc>;
  log: Collection<LogDoc>;
  settings: Collection<SettingsDoc>;
}

export const KNOWLEDGE_COLLECTION_NAMES = {
  structures: 'knowledge_structures',
  objects: 'knowledge_objects',
  counts: 'knowledge_object_counts',
  log: 'knowledge_enrichment_log',
  settings: 'knowledge_settings',
} as const;

/** The collections, created with their indexes (idempotent; safe when several instances start at once). */
export async function openKnowledgeCollections(db: Db): Promise<KnowledgeCollections> {
  const n = KNOWLEDGE_COLLECTION_NAMES;
  await ensureCollections(db, Object.values(n));
  const structures = db.collection<StructureDoc>(n.structures);
  const objects = db.collection<ObjectDoc>(n.objects);
  const counts = db.collection<CountDoc>(n.counts);
  const log = db.collection<LogDoc>(n.log);
  // Settings are read by `_id` only: the primary key is the one index they need.
  const settings = db.collection<SettingsDoc>(n.settings);
  await structures.createIndexes([{ key: { tenantId: 1, type: 1, version: 1 }, name: 'knowledge_structures_version', unique: true }]);
  await objects.createIndexes([
    { key: { tenantId: 1, type: 1, createdAt: 1, _id: 1 }, name: 'knowledge_objects_created' },
    { key: { tenantId: 1, type: 1, completenessScore: 1, createdAt: 1, _id: 1 }, name: 'knowledge_objects_completeness' },
    { key: { tenantId: 1, type: 1, status: 1, createdAt: 1, _id: 1 }, name: 'knowledge_objects_status_created' },
    {
      key: { tenantId: 1, type: 1, status: 1, completenessScore: 1, createdAt: 1, _id: 1 },
      name: 'knowledge_objects_status_completeness',
    },
    { key: { tenantId: 1, type: 1, identityKey: 1, createdAt: 1, _id: 1 }, name: 'knowledge_objects_identity' },
    { key: { tenantId: 1, identityKey: 1 }, name: 'knowledge_objects_tenant_identity' },
    { key: { tenantId: 1, type: 1, schemaVersion: 1 }, name: 'knowledge_objects_version' },
    { key: { tenantId: 1, type: 1, _id: 1 }, name: 'knowledge_objects_type_id' },
  ]);
  await counts.createIndexes([{ key: { tenantId: 1, type: 1, status: 1, completenessScore: 1 }, name: 'knowledge_object_counts_key' }]);
  await log.createIndexes([{ key: { tenantId: 1, objectId: 1, createdAt: 1, seq: 1, _id: 1 }, name: 'knowledge_enrichment_log_object' }]);
  return { structures, objects, counts, log, settings };
}
