import type { EnrichmentLogRecord, KnowledgeObjectRecord } from '../../server/ports/knowledge.js';
import type { JsonValue } from '../../server/services/knowledge/model.js';

/** The columns of `knowledge_objects`, in the order `objectColumns` gives their values. */
export const OBJECT_COLUMNS = `id, tenant_id, type, structure_id, schema_version, status, completeness, do_not_enrich, fields,
  identity_key, enriched_at, enrichment_run_id, enrichment_since, size_bytes, revision, created_at, updated_at`;
export const OBJECT_PLACEHOLDERS = Array.from({ length: 17 }, () => '?').join(', ');

export interface ObjectRow {
  id: string;
  tenant_id: string;
  type: string;
  structure_id: string;
  schema_version: string;
  status: KnowledgeObjectRecord['status'];
  completeness: number;
  do_not_enrich: number;
  fields: string;
  identity_key: string;
  enriched_at: string | null;
  enrichment_run_id: string | null;
  enrichment_since: string | null;
  size_bytes: number;
  revision: number;
  created_at: string;
  updated_at: string;
}

/** A record's values, OBJECT_COLUMNS in order. */
export function objectColumns(r: KnowledgeObjectRecord): unknown[] {
  return [
    r.id,
    r.tenantId,
    r.type,
    r.structureId,
    r.schemaVersion,
    r.status,
    r.completenessScore,
    r.doNotEnrich ? 1 : 0,
    JSON.stringify(r.fields),
    r.identityKey,
    r.enrichedAt,
    r.enrichment?.runId ?? null,
    r.enrichment?.since ?? null,
    r.sizeBytes,
    r.revision,
    r.createdAt,
    r.updatedAt,
  ];
}

export function toObjectRecord(r: ObjectRow): KnowledgeObjectRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    type: r.type,
    structureId: r.structure_id,
    schemaVersion: r.schema_version,
    status: r.status,
    completenessScore: r.completeness,
    doNotEnrich: r.do_not_enrich === 1,
    fields: JSON.parse(r.fields) as KnowledgeObjectRecord['fields'],
    identityKey: r.identity_key,
    enrichedAt: r.enriched_at,
    enrichment: r.enrichment_run_id !== null ? { runId: r.enrichment_run_id, since: r.enrichment_since ?? '' } : null,
    sizeBytes: r.size_bytes,
    revision: r.revision,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export const LOG_COLUMNS = `id, tenant_id, object_id, run_id, engine, field, strategy, candidate_value, confidence, outcome,
  source_refs, previous_value, created_at, seq`;
export const LOG_PLACEHOLDERS = Array.from({ length: 14 }, () => '?').join(', ');

export interface LogRow {
  id: string;
  tenant_id: string;
  object_id: string;
  run_id: string;
  engine: EnrichmentLogRecord['engine'];
  field: string;
  strategy: string;
  candidate_value: string | null;
  confidence: number | null;
  outcome: EnrichmentLogRecord['outcome'];
  source_refs: string;
  previous_value: string | null;
  created_at: string;
  seq: number;
}

/** JSON text, or SQL NULL for a value that is absent (a stored JSON `null` reads back the same). */
const jsonOrNull = (v: JsonValue | null): string | null => (v === null ? null : JSON.stringify(v));
const parseOrNull = (text: string | null): JsonValue | null => (text === null ? null : (JSON.parse(text) as JsonValue));

/** An entry's values, LOG_COLUMNS in order; `seq` is its place in the batch it is appended with. */
export function logColumns(e: EnrichmentLogRecord, seq: number): unknown[] {
  return [
    e.id,
    e.tenantId,
    e.objectId,
    e.runId,
    e.engine,
    e.field,
    e.strategy,
    jsonOrNull(e.candidateValue),
    e.confidence,
    e.outcome,
    JSON.stringify(e.sourceRefs),
    jsonOrNull(e.previousValue),
    e.createdAt,
    seq,
  ];
}

export function toLogRecord(r: LogRow): EnrichmentLogRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    objectId: r.object_id,
    runId: r.run_id,
    engine: r.engine,
    field: r.field,
    strategy: r.strategy,
    candidateValue: parseOrNull(r.candidate_value),
    confidence: r.confidence,
    outcome: r.outcome,
    sourceRefs: JSON.parse(r.source_refs) as string[],
    previousValue: parseOrNull(r.previous_value),
    createdAt: r.created_at,
  };
}
