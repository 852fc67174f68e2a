import type { KnowledgeObjectRecord } from '../../ports/knowledge.js';
import { normaliseName } from '../../text/fact-vocabulary.js';
import { assessObject, type MissingField } from './completeness.js';
import { hasContent } from './field-content.js';
import type { FieldValue, JsonValue } from './model.js';
import type { StructureDefinition } from './structure-definition.js';

/**
 * What every write of a knowledge object recomputes from its fields, in the same write (both
 * profiles store what this returns): completeness, status, the identity key engines look it up by,
 * and its size toward the tenant's storage.
 */

/** The stored FieldValue of a value a client wrote: `AGENT_INPUT`, confidence 1 (clients cannot claim another provenance). */
export function agentValue(value: JsonValue, at: string): FieldValue {
  return { value, confidence: 1, provenance: 'AGENT_INPUT', updatedAt: at };
}

/** A field the client states has no value ("known none"): filled for completeness, never enriched. */
export function knownNoneValue(at: string): FieldValue {
  return { value: null, confidence: 1, provenance: 'AGENT_INPUT', updatedAt: at, knownNone: true };
}

/** The identity fields' values, normalised and joined; '' when one is empty (such an object resolves to nothing). */
export function identityKeyOf(definition: StructureDefinition, fields: Readonly<Record<string, FieldValue>>): string {
  const parts: string[] = [];
  for (const name of definition.identityFields) {
    const v = fields[name]?.value;
    if (typeof v !== 'string' || !hasContent(v)) return '';
    parts.push(normaliseName(v));
  }
  return parts.join('\u001f');
}

/** Bytes the object counts toward storage: its fields as JSON, UTF-8. */
export function sizeOf(fields: Readonly<Record<string, FieldValue>>): number {
  return Buffer.byteLength(JSON.stringify(fields), 'utf8');
}

/** The derived columns of an object with these fields under this definition. */
export function derivedState(
  definition: StructureDefinition,
  fields: Readonly<Record<string, FieldValue>>,
  run: Pick<KnowledgeObjectRecord, 'enrichedAt' | 'enrichment'>,
): Pick<KnowledgeObjectRecord, 'completenessScore' | 'status' | 'identityKey' | 'sizeBytes'> & { missingFields: MissingField[] } {
  const a = assessObject(definition.fields, fields, { enriching: run.enrichment !== null, enrichedSinceCreation: run.enrichedAt !== null });
  return {
    completenessScore: a.completenessScore,
    status: a.status,
    missingFields: a.missingFields,
    identityKey: identityKeyOf(definition, fields),
    sizeBytes: sizeOf(fields),
  };
}
