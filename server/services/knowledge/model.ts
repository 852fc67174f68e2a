/**
 * The vocabulary of the Knowledge API (issue #23), in domain (camelCase) terms: what a structure's
 * fields say about themselves, what a stored field value carries, and what an enrichment engine
 * proposes. Routers map these to the spec's wire names (`ks_id`, `completeness_score`, ...).
 */

/** How a value came to be; clients can only ever write `AGENT_INPUT` (spec: FieldValue.provenance). */
export const PROVENANCES = ['AGENT_INPUT', 'KG_INFERENCE', 'LLM_INFERENCE', 'WEB_INFERENCE'] as const;
export type Provenance = (typeof PROVENANCES)[number];

/** Spec: Knowledge object `status`. */
export const OBJECT_STATUSES = ['INCOMPLETE', 'ENRICHING', 'PARTIALLY_COMPLETE', 'COMPLETE'] as const;
export type ObjectStatus = (typeof OBJECT_STATUSES)[number];

export const STRUCTURE_STATUSES = ['DRAFT', 'ACTIVE', 'DEPRECATED'] as const;
export type StructureStatus = (typeof STRUCTURE_STATUSES)[number];

/** The memory API's sensitivity levels; a `high` field is never sent to an outside engine (LLM, web). */
export const FIELD_SENSITIVITIES = ['low', 'medium', 'high'] as const;
export type FieldSensitivity = (typeof FIELD_SENSITIVITIES)[number];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Default thresholds: a candidate at or above `commitAt` is applied, from `proposeAt` up it is logged as proposed. */
export const DEFAULT_COMMIT_AT = 0.8;
export const DEFAULT_PROPOSE_AT = 0.5;

/** The rules engine's derivations a structure may declare (`x-knowledge.derive`). */
export const DERIVATION_RULES = ['domain_from_url', 'domain_from_email'] as const;
export type DerivationRule = (typeof DERIVATION_RULES)[number];

/** One field's `x-knowledge` annotation, with every default filled in. */
export interface FieldAnnotation {
  /** Share of the completeness score (relative to the other fields' weights); 0 leaves the field out of it. */
  weight: number;
  cardinality: 'single' | 'multi';
  sensitivity: FieldSensitivity;
  /** Provenances allowed to fill the field (AGENT_INPUT always may). */
  provenance: Provenance[];
  commitAt: number;
  proposeAt: number;
  /** The field may be derived by the rules engine from another field of the same object. */
  derive: { rule: DerivationRule; from: string[] } | null;
  /** Identity fields resolve the object to memory-graph entities and to other objects. */
  identity: boolean;
}

/** One field of a stored object. `knownNone`: the client stated there is no value (counts as filled, value null). */
export interface FieldValue {
  value: JsonValue;
  confidence: number;
  provenance: Provenance;
  updatedAt: string;
  knownNone?: true;
}

/** What an engine proposes for one field. `sourceRefs`: the memories (`memory:<id>`), objects (`knowledge:<id>`) or URLs used. */
export interface Candidate {
  field: string;
  value: JsonValue;
  confidence: number;
  strategy: string;
  sourceRefs: string[];
}

export const ENGINE_NAMES = ['rule', 'kg', 'llm', 'web'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];
/** Who wrote an enrichment log entry: an engine, or the migration of a structure's activation (each field it touched). */
export type LogEngine = EngineName | 'migration';

/** Spec: enrichment log `outcome`, one per field × engine × strategy attempt. */
export const ENRICHMENT_OUTCOMES = [
  'committed',
  'proposed',
  'rejected',
  'conflict',
  'skipped_agent_value',
  'policy_denied',
  'no_candidate',
  'stale',
  'error',
] as const;
export type EnrichmentOutcome = (typeof ENRICHMENT_OUTCOMES)[number];
