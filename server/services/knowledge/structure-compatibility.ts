/**
 * Which changes between the ACTIVE version of a structure and a candidate would leave stored objects
 * with values the candidate refuses, or without values it requires. Compatible: new optional fields,
 * relaxed constraints, a field no longer required, a dropped format, any weight, threshold,
 * sensitivity, provenance or derivation. Everything else is listed, with the field and why.
 */
import { fieldValueProblems } from './field-values.js';
import type { EnumValue, ScalarFieldSchema } from './field-schema.js';
import type { StructureDefinition, StructureField } from './structure-definition.js';

export const INCOMPATIBLE_CHANGE_KINDS = [
  'field_removed',
  'required_added',
  'type_changed',
  'constraint_narrowed',
  'cardinality_changed',
  'identity_changed',
] as const;
export type IncompatibleChangeKind = (typeof INCOMPATIBLE_CHANGE_KINDS)[number];

export interface IncompatibleChange {
  /** The field's name in the candidate (in the active version for a removed field). */
  field: string;
  kind: IncompatibleChangeKind;
  message: string;
}

/** Every incompatible change from `active` to `next`, fields in the order they are declared. */
export function compareStructures(active: StructureDefinition, next: StructureDefinition): IncompatibleChange[] {
  const changes: IncompatibleChange[] = [];
  for (const name of active.fieldNames) {
    if (!Object.hasOwn(next.fields, name))
      changes.push({ field: name, kind: 'field_removed', message: `field removed in ${next.version}` });
  }
  for (const name of next.fieldNames) {
    if (Object.hasOwn(active.fields, name)) changes.push(...fieldChanges(active.fields[name]!, next, name));
    else if (next.fields[name]!.required) changes.push({ field: name, kind: 'required_added', message: 'new required field' });
  }
  const before = new Set(active.identityFields);
  const after = new Set(next.identityFields);
  for (const name of new Set([...before, ...after])) {
    if (before.has(name) !== after.has(name)) {
      changes.push({
        field: name,
        kind: 'identity_changed',
        message: before.has(name) ? 'no longer an identity field' : 'became an identity field',
      });
    }
  }
  return changes;
}

/**
 * How field `name` of `next` narrows `old` (the same field, or the one renamed to it): the values
 * `old` accepted that `name` may refuse, and whether it became required.
 */
export function fieldChanges(old: StructureField, next: StructureDefinition, name: string): IncompatibleChange[] {
  const field = next.fields[name]!;
  const changes: IncompatibleChange[] = [];
  if (old.annotation.cardinality !== field.annotation.cardinality) {
    changes.push({
      field: name,
      kind: 'cardinality_changed',
      message: `cardinality ${old.annotation.cardinality} → ${field.annotation.cardinality}`,
    });
  } else {
    const reasons: string[] = [];
    if (
      old.schema.type === 'array' &&
      field.schema.type === 'array' &&
      (field.schema.maxItems ?? Infinity) < (old.schema.maxItems ?? Infinity)
    ) {
      reasons.push(`maxItems lowered to ${field.schema.maxItems}`);
    }
    const oldScalar = old.schema.type === 'array' ? old.schema.items : old.schema;
    const newScalar = field.schema.type === 'array' ? field.schema.items : field.schema;
    const wrap = (v: EnumValue) => (field.schema.type === 'array' ? [v] : v);
    const accepts = (v: EnumValue) => fieldValueProblems(next, name, wrap(v)).length === 0;
    const typeChange = typeNarrowing(oldScalar, newScalar);
    if (typeChange) changes.push({ field: name, kind: 'type_changed', message: typeChange });
    else reasons.push(...constraintNarrowing(oldScalar, newScalar, accepts));
    if (reasons.length > 0) changes.push({ field: name, kind: 'constraint_narrowed', message: reasons.join('; ') });
  }
  if (!old.required && field.required) changes.push({ field: name, kind: 'required_added', message: 'became required' });
  return changes;
}

function typeNarrowing(a: ScalarFieldSchema, b: ScalarFieldSchema): string | null {
  // Every integer is a number: widening integer → number is compatible, the reverse is not.
  if (a.type === b.type || (a.type === 'integer' && b.type === 'number')) return null;
  return `type ${a.type} → ${b.type}`;
}

function constraintNarrowing(a: ScalarFieldSchema, b: ScalarFieldSchema, accepts: (v: EnumValue) => boolean): string[] {
  // An old enum is the whole set of values stored: compatible exactly when the new schema takes each.
  if (a.enum) {
    const refused = a.enum.filter((v) => !accepts(v));
    return refused.length > 0 ? [`no longer accepts ${refused.map((v) => JSON.stringify(v)).join(', ')}`] : [];
  }
  const reasons: string[] = [];
  if (b.enum) reasons.push('enum added');
  if (b.format !== undefined && b.format !== a.format)
    reasons.push(a.format ? `format ${a.format} → ${b.format}` : `format ${b.format} added`);
  if ((b.minLength ?? 0) > (a.minLength ?? 0)) reasons.push(`minLength raised to ${b.minLength}`);
  if ((b.maxLength ?? Infinity) < (a.maxLength ?? Infinity)) reasons.push(`maxLength lowered to ${b.maxLength}`);
  if ((b.minimum ?? -Infinity) > (a.minimum ?? -Infinity)) reasons.push(`minimum raised to ${b.minimum}`);
  if ((b.maximum ?? Infinity) < (a.maximum ?? Infinity)) reasons.push(`maximum lowered to ${b.maximum}`);
  return reasons;
}
