import { randomUUID } from 'node:crypto';
import type { EnrichmentLogRecord, KnowledgeObjectRecord, StructureRecord } from '../../server/ports/knowledge.js';
import type { FieldValue, JsonValue } from '../../server/services/knowledge/model.js';

/** Made-up records for the knowledge store contract, with every field set so a lost one shows. */

export const T0 = Date.parse('2031-03-01T08:00:00.000Z');
/** An ISO time `seconds` after T0. */
export const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

export function structure(tenantId: string, type: string, version: string, extra: Partial<StructureRecord> = {}): StructureRecord {
  return {
    id: randomUUID(),
    tenantId,
    type,
    version,
    status: 'DRAFT',
    // Keys a document store treats specially (`$`-prefixed, dotted) must come back as published.
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { 'code.name': { type: 'string', 'x-knowledge': { weight: 2, identity: true } } },
      required: ['code.name'],
    },
    createdAt: at(0),
    activatedAt: null,
    ...extra,
  };
}

const fieldValue = (value: JsonValue): FieldValue => ({ value, confidence: 0.9, provenance: 'AGENT_INPUT', updatedAt: at(1) });

/** The bytes the object counts for, as the service computes them (its fields as JSON, UTF-8). */
export const sizeOf = (fields: Record<string, FieldValue>) => Buffer.byteLength(JSON.stringify(fields), 'utf8');

export function knowledgeObject(tenantId: string, type: string, extra: Partial<KnowledgeObjectRecord> = {}): KnowledgeObjectRecord {
  const fields = extra.fields ?? {
    name: fieldValue(`Quillfeather ${randomUUID().slice(0, 8)}`),
    'tags.list': fieldValue(['ørsted', { $weird: true }]),
    homepage: { ...fieldValue(null), knownNone: true },
  };
  return {
    id: randomUUID(),
    tenantId,
    type,
    structureId: randomUUID(),
    schemaVersion: '1.0.0',
    status: 'INCOMPLETE',
    completenessScore: 0.5,
    doNotEnrich: false,
    fields,
    identityKey: 'quillfeather',
    enrichedAt: null,
    enrichment: null,
    sizeBytes: sizeOf(fields),
    revision: 1,
    createdAt: at(0),
    updatedAt: at(0),
    ...extra,
  };
}

/** The next revision of `r` with new fields (size recomputed) and whatever else `extra` changes. */
export function revised(r: KnowledgeObjectRecord, fields: Record<string, FieldValue>, extra: Partial<KnowledgeObjectRecord> = {}) {
  return { ...r, fields, sizeBytes: sizeOf(fields), revision: r.revision + 1, updatedAt: at(100), ...extra };
}

export const withName = (name: string): Record<string, FieldValue> => ({ name: fieldValue(name) });

export function logEntry(o: KnowledgeObjectRecord, field: string, extra: Partial<EnrichmentLogRecord> = {}): EnrichmentLogRecord {
  return {
    id: randomUUID(),
    tenantId: o.tenantId,
    objectId: o.id,
    runId: 'run-1',
    engine: 'rule',
    field,
    strategy: 'domain_from_email',
    candidateValue: { nested: ['quill.example'] },
    confidence: 0.85,
    outcome: 'committed',
    sourceRefs: [`knowledge:${o.id}`, 'https://quill.example/about'],
    previousValue: null,
    createdAt: at(50),
    ...extra,
  };
}
