import type { z } from 'zod';
import type { EnrichmentLogRecord } from '../../server/ports/knowledge.js';
import type { KnowledgeSettings } from '../../server/ports/knowledge-settings.js';
import type { KnowledgeObjectView } from '../../server/services/knowledge/knowledge-service.js';
import type { FieldValue } from '../../server/services/knowledge/model.js';
import type { StructureView } from '../../server/services/knowledge/structure-catalog.js';
import type { enrichmentLogOutput, knowledgeObjectOutput, knowledgeSettingsOutput, structureOutput } from './schemas.js';

/** The Knowledge API's wire form (the spec's snake_case names) of what the knowledge service returns. */

const toFieldValue = (v: FieldValue) => ({
  value: v.value,
  confidence: v.confidence,
  provenance: v.provenance,
  updated_at: v.updatedAt,
  ...(v.knownNone ? { known_none: true as const } : {}),
});

export function toKnowledgeObject({ record: r, missingFields }: KnowledgeObjectView): z.output<typeof knowledgeObjectOutput> {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    ks_id: r.structureId,
    ks_type: r.type,
    schema_version: r.schemaVersion,
    status: r.status,
    completeness_score: r.completenessScore,
    do_not_enrich: r.doNotEnrich,
    fields: Object.fromEntries(Object.entries(r.fields).map(([name, v]) => [name, toFieldValue(v)])),
    missing_fields: missingFields.map((m) => ({ field: m.field, required: m.required, weight: m.weight, share: m.share })),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export function toStructure(s: StructureView): z.output<typeof structureOutput> {
  return {
    ks_id: s.id,
    ks_type: s.type,
    schema_version: s.version,
    status: s.status,
    builtin: s.builtin,
    schema: { ...s.definition.schema },
    created_at: s.createdAt,
    activated_at: s.activatedAt,
  };
}

export function toLogEntries(entries: readonly EnrichmentLogRecord[]): z.output<typeof enrichmentLogOutput> {
  return entries.map((e) => ({
    id: e.id,
    tenant_id: e.tenantId,
    ko_id: e.objectId,
    run_id: e.runId,
    engine: e.engine,
    field: e.field,
    strategy: e.strategy,
    candidate_value: e.candidateValue,
    confidence: e.confidence,
    outcome: e.outcome,
    source_refs: e.sourceRefs,
    previous_value: e.previousValue,
    created_at: e.createdAt,
  }));
}

export const toKnowledgeSettings = (s: KnowledgeSettings): z.output<typeof knowledgeSettingsOutput> => ({
  web_enrichment: s.webEnrichment,
  updated_at: s.updatedAt,
});
