import type { KnowledgeField } from '../../server/services/knowledge/field-shape.js';
import type { FieldAnnotation, FieldValue, JsonValue, Provenance } from '../../server/services/knowledge/model.js';

/** Test builders for the knowledge rules: an annotation with the spec's defaults, and stored values. */
export function annotation(overrides: Partial<FieldAnnotation> = {}): FieldAnnotation {
  return {
    weight: 1,
    cardinality: 'single',
    sensitivity: 'low',
    provenance: ['AGENT_INPUT', 'KG_INFERENCE', 'LLM_INFERENCE', 'WEB_INFERENCE'],
    commitAt: 0.8,
    proposeAt: 0.5,
    derive: null,
    identity: false,
    ...overrides,
  };
}

export function field(weight: number, required = false, overrides: Partial<FieldAnnotation> = {}): KnowledgeField {
  return { annotation: annotation({ weight, ...overrides }), required };
}

export const T0 = '2025-01-01T00:00:00.000Z';

export function agent(value: JsonValue): FieldValue {
  return { value, confidence: 1, provenance: 'AGENT_INPUT', updatedAt: T0 };
}

export function inferred(value: JsonValue, confidence: number, provenance: Provenance = 'KG_INFERENCE'): FieldValue {
  return { value, confidence, provenance, updatedAt: T0 };
}

export function knownNone(): FieldValue {
  return { value: null, confidence: 1, provenance: 'AGENT_INPUT', updatedAt: T0, knownNone: true };
}
