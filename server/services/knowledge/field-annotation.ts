/**
 * A field's `x-knowledge` annotation: its wire shape (strict, so a misspelt key is a problem rather
 * than a silently ignored setting) and its normalization into the domain `FieldAnnotation` with every
 * default filled in. Checks that need the other fields (derivations, identity) live in
 * structure-definition.ts.
 */
import { z } from 'zod';
import type { FieldIssue } from '../../errors.js';
import type { FieldSchema } from './field-schema.js';
import {
  DEFAULT_COMMIT_AT,
  DEFAULT_PROPOSE_AT,
  DERIVATION_RULES,
  FIELD_SENSITIVITIES,
  PROVENANCES,
  type FieldAnnotation,
  type Provenance,
} from './model.js';

/** Weights are relative; the cap keeps a sum of 100 fields' weights far from overflow. */
export const MAX_FIELD_WEIGHT = 1000;
export const DEFAULT_FIELD_WEIGHT = 1;
export const MAX_DERIVATION_SOURCES = 10;

const threshold = z
  .number({ error: 'must be a finite number in [0, 1]' })
  .min(0, { error: 'must be in [0, 1]' })
  .max(1, { error: 'must be in [0, 1]' });

/** The wire shape of `x-knowledge` (snake_case, like every wire name of the spec). */
export const fieldAnnotationWireSchema = z
  .object({
    weight: z
      .number({ error: 'must be a finite number' })
      .min(0, { error: 'must not be negative' })
      .max(MAX_FIELD_WEIGHT, { error: `must be at most ${MAX_FIELD_WEIGHT}` })
      .optional(),
    cardinality: z.enum(['single', 'multi'], { error: "must be 'single' or 'multi'" }).optional(),
    sensitivity: z.enum(FIELD_SENSITIVITIES, { error: `must be one of ${FIELD_SENSITIVITIES.join(', ')}` }).optional(),
    provenance: z
      .array(z.enum(PROVENANCES, { error: `must be one of ${PROVENANCES.join(', ')}` }), { error: 'must be an array' })
      .optional(),
    commit_at: threshold.optional(),
    propose_at: threshold.optional(),
    derive: z
      .object({
        rule: z.enum(DERIVATION_RULES, { error: `must be one of ${DERIVATION_RULES.join(', ')}` }),
        from: z
          .array(z.string({ error: 'must be a field name' }), { error: 'must be an array of field names' })
          .min(1, { error: 'must name at least one field' })
          .max(MAX_DERIVATION_SOURCES, { error: `must name at most ${MAX_DERIVATION_SOURCES} fields` }),
      })
      .strict()
      .nullable()
      .optional(),
    identity: z.boolean({ error: 'must be a boolean' }).optional(),
  })
  .strict();

export type FieldAnnotationWire = z.infer<typeof fieldAnnotationWireSchema>;

const KNOWN_KEYS = Object.keys(fieldAnnotationWireSchema.shape).join(', ');

/**
 * Parses `raw` (undefined when the field has no annotation) for a field whose schema is `schema`
 * (null when the schema itself was refused). Pushes every problem under `path`; returns null if any.
 */
export function parseFieldAnnotation(
  raw: unknown,
  schema: FieldSchema | null,
  path: string,
  problems: FieldIssue[],
): FieldAnnotation | null {
  const parsed = fieldAnnotationWireSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const at = [path, ...issue.path.map(String)].join('.');
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys)
          problems.push({ field: `${at}.${key}`, message: `unknown annotation '${key}' (known: ${KNOWN_KEYS})` });
      } else problems.push({ field: at, message: issue.message });
    }
    return null;
  }
  const wire = parsed.data;
  const before = problems.length;
  const arrayTyped = schema?.type === 'array';
  const cardinality = wire.cardinality ?? (arrayTyped ? 'multi' : 'single');
  if (schema && (cardinality === 'multi') !== arrayTyped) {
    problems.push({
      field: `${path}.cardinality`,
      message: `'${cardinality}' disagrees with type ${schema.type}: a multi-value field is an array, a single-value field is not`,
    });
  }
  const commitAt = wire.commit_at ?? DEFAULT_COMMIT_AT;
  // A lone low commit_at pulls the default propose_at down with it rather than failing the structure.
  const proposeAt = wire.propose_at ?? Math.min(DEFAULT_PROPOSE_AT, commitAt);
  if (proposeAt > commitAt) {
    problems.push({ field: `${path}.propose_at`, message: `must not be above commit_at (${proposeAt} > ${commitAt})` });
  }
  if (problems.length !== before) return null;
  return {
    weight: wire.weight ?? DEFAULT_FIELD_WEIGHT,
    cardinality,
    sensitivity: wire.sensitivity ?? 'low',
    provenance: normalizeProvenance(wire.provenance),
    commitAt,
    proposeAt,
    derive: wire.derive ? { rule: wire.derive.rule, from: [...new Set(wire.derive.from)] } : null,
    identity: wire.identity ?? false,
  };
}

/** Every kind unless restricted; AGENT_INPUT always (a client's own statement is never refused by source). */
function normalizeProvenance(listed: Provenance[] | undefined): Provenance[] {
  if (!listed) return [...PROVENANCES];
  const set = new Set<Provenance>(['AGENT_INPUT', ...listed]);
  return PROVENANCES.filter((p) => set.has(p));
}
