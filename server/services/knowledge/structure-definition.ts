/**
 * A tenant-supplied knowledge structure `{schema_version, schema}` checked and normalized into a
 * `StructureDefinition`, or refused with EVERY problem found (the service answers 400 listing them).
 * Problems name wire paths (`schema.properties.email.x-knowledge.weight`), like the other services.
 */
import semver from 'semver';
import type { FieldIssue } from '../../errors.js';
import { parseFieldAnnotation } from './field-annotation.js';
import { ANNOTATION_KEY, checkFieldSchema, isPlainObject, scalarOf, type FieldSchema } from './field-schema.js';
import type { FieldAnnotation, JsonValue } from './model.js';

export const MAX_FIELDS = 100;
export const MAX_FIELD_NAME_LENGTH = 64;
export const MAX_VERSION_LENGTH = 64;

/** Type names travel in URL paths (`/v1/knowledge/{type}`): lower-case identifiers only. */
export const STRUCTURE_TYPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** Field names travel in dotted problem paths and in storage keys: identifiers, no dots or dashes. */
const FIELD_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Names a field may not take: the object envelope's identifiers (a `fields.tenant_id` would be
 * read as the real one by someone, sooner or later) and every name Object.prototype carries
 * (`__proto__`, `constructor`, `toString`...), which a lookup by name on a plain object could find.
 * Names starting with `$` or `_` are refused by the name pattern, kept for our own use.
 */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set([
  'id',
  'tenant_id',
  'ks_id',
  'ks_type',
  'ko_id',
  'schema_version',
  'prototype',
  ...Object.getOwnPropertyNames(Object.prototype),
]);

/** Top-level keywords of a structure's schema; any other is refused. */
const TOP_LEVEL_KEYWORDS = new Set(['type', 'properties', 'required', 'title', 'description', '$schema', 'additionalProperties']);
const KNOWN_DIALECTS = new Set([
  'http://json-schema.org/draft-07/schema#',
  'https://json-schema.org/draft/2019-09/schema',
  'https://json-schema.org/draft/2020-12/schema',
]);

export interface StructureField {
  /** The property's JSON Schema without its annotation. */
  schema: FieldSchema;
  annotation: FieldAnnotation;
  required: boolean;
}

export interface StructureDefinition {
  type: string;
  version: string;
  /** The JSON Schema as published (annotations included): what GET answers. */
  schema: { readonly [key: string]: JsonValue };
  /** Null-prototype map, in declaration order; look names up with Object.hasOwn. */
  fields: Readonly<Record<string, StructureField>>;
  fieldNames: readonly string[];
  identityFields: readonly string[];
}

export type StructureParseOutcome = { ok: true; definition: StructureDefinition } | { ok: false; problems: FieldIssue[] };

const propertyPath = (name: string) => `schema.properties.${name}`;
const annotationPath = (name: string) => `${propertyPath(name)}.${ANNOTATION_KEY}`;

/** Checks the body of `POST /v1/knowledge/{type}/structures` for type `type`. */
export function parseStructure(type: string, input: unknown): StructureParseOutcome {
  const problems: FieldIssue[] = [];
  if (!STRUCTURE_TYPE_PATTERN.test(type)) {
    problems.push({ field: 'type', message: 'must be 1-64 lower-case letters, digits or _, starting with a letter' });
  }
  if (!isPlainObject(input))
    return { ok: false, problems: [...problems, { field: 'body', message: 'must be an object {schema_version, schema}' }] };
  const version = checkVersion(input.schema_version, problems);
  const schema = input.schema;
  if (!isPlainObject(schema)) {
    problems.push({ field: 'schema', message: 'must be a JSON Schema object' });
    return { ok: false, problems };
  }
  checkTopLevel(schema, problems);
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = checkRequired(schema.required, properties, problems);
  const fields: Record<string, StructureField> = Object.create(null) as Record<string, StructureField>;
  for (const [name, raw] of Object.entries(properties)) {
    const nameOk = checkFieldName(name, problems);
    const path = propertyPath(name);
    const fieldSchema = checkFieldSchema(raw, path, problems);
    const annotation = parseFieldAnnotation(
      isPlainObject(raw) ? raw[ANNOTATION_KEY] : undefined,
      fieldSchema,
      annotationPath(name),
      problems,
    );
    if (nameOk && fieldSchema && annotation) fields[name] = { schema: fieldSchema, annotation, required: required.has(name) };
  }
  const names = Object.keys(properties);
  checkDerivations(names, properties, fields, problems);
  const identityFields = checkIdentity(names, fields, problems);
  if (Object.values(fields).length === names.length && names.length > 0 && names.every((n) => fields[n]!.annotation.weight === 0)) {
    problems.push({ field: 'schema.properties', message: 'every field has weight 0; completeness needs at least one weighted field' });
  }
  if (problems.length > 0 || version === null) return { ok: false, problems };
  const definition: StructureDefinition = {
    type,
    version,
    schema: structuredClone(schema) as StructureDefinition['schema'],
    fields,
    fieldNames: names,
    identityFields,
  };
  // Frozen: compiled validators are cached per definition object, so it must never change under them.
  return { ok: true, definition: deepFreeze(definition) };
}

function checkVersion(raw: unknown, problems: FieldIssue[]): string | null {
  // Canonical semver only: `v1.0.0` and build metadata (`1.0.0+x`, equal in precedence to 1.0.0) are refused.
  if (typeof raw === 'string' && raw.length <= MAX_VERSION_LENGTH && semver.valid(raw) === raw) return raw;
  problems.push({ field: 'schema_version', message: 'must be a semantic version such as 1.0.0 (MAJOR.MINOR.PATCH, optional -prerelease)' });
  return null;
}

function checkTopLevel(schema: Record<string, unknown>, problems: FieldIssue[]): void {
  if (schema.type !== 'object') problems.push({ field: 'schema.type', message: "must be 'object'" });
  for (const key of Object.keys(schema)) {
    if (!TOP_LEVEL_KEYWORDS.has(key))
      problems.push({ field: `schema.${key}`, message: `unsupported keyword (supported: ${[...TOP_LEVEL_KEYWORDS].join(', ')})` });
  }
  if (schema.$schema !== undefined && !KNOWN_DIALECTS.has(schema.$schema as string)) {
    problems.push({ field: 'schema.$schema', message: `must be one of ${[...KNOWN_DIALECTS].join(', ')} (or absent)` });
  }
  // Unknown fields are always refused, so only `false` (saying just that) is meaningful.
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    problems.push({ field: 'schema.additionalProperties', message: 'may only be false: fields not in properties are always refused' });
  }
  for (const key of ['title', 'description'] as const) {
    if (schema[key] !== undefined && (typeof schema[key] !== 'string' || schema[key].length > 2000)) {
      problems.push({ field: `schema.${key}`, message: 'must be a string of at most 2000 characters' });
    }
  }
  if (!isPlainObject(schema.properties)) {
    problems.push({ field: 'schema.properties', message: 'must be an object of field schemas' });
    return;
  }
  const count = Object.keys(schema.properties).length;
  if (count === 0) problems.push({ field: 'schema.properties', message: 'must declare at least one field' });
  if (count > MAX_FIELDS) problems.push({ field: 'schema.properties', message: `too many fields (${count}; at most ${MAX_FIELDS})` });
}

function checkRequired(raw: unknown, properties: Record<string, unknown>, problems: FieldIssue[]): Set<string> {
  const required = new Set<string>();
  if (raw === undefined) return required;
  if (!Array.isArray(raw)) {
    problems.push({ field: 'schema.required', message: 'must be an array of field names' });
    return required;
  }
  raw.forEach((name: unknown, i) => {
    const at = `schema.required.${i}`;
    if (typeof name !== 'string') problems.push({ field: at, message: 'must be a field name' });
    else if (!Object.hasOwn(properties, name)) problems.push({ field: at, message: `names no field of properties ('${name}')` });
    else if (required.has(name)) problems.push({ field: at, message: `lists '${name}' twice` });
    else required.add(name);
  });
  return required;
}

function checkFieldName(name: string, problems: FieldIssue[]): boolean {
  const path = propertyPath(name);
  let message: string | null = null;
  if (RESERVED_FIELD_NAMES.has(name) || name.startsWith('$') || name.startsWith('_')) message = 'is a reserved name';
  else if (name.length > MAX_FIELD_NAME_LENGTH) message = `name is too long (${name.length}; at most ${MAX_FIELD_NAME_LENGTH} characters)`;
  else if (!FIELD_NAME_PATTERN.test(name)) message = 'name must be letters, digits or _, starting with a letter';
  if (message) problems.push({ field: path, message });
  return message === null;
}

/** Derivation sources must be other string fields of the structure, with no cycle between fields. */
function checkDerivations(
  names: string[],
  properties: Record<string, unknown>,
  fields: Record<string, StructureField>,
  problems: FieldIssue[],
): void {
  const edges = new Map<string, string[]>();
  for (const name of names) {
    const derive = fields[name]?.annotation.derive;
    if (!derive) continue;
    const at = `${annotationPath(name)}.derive.from`;
    const sources: string[] = [];
    for (const source of derive.from) {
      if (source === name) problems.push({ field: at, message: `'${name}' cannot derive from itself` });
      else if (!Object.hasOwn(properties, source)) problems.push({ field: at, message: `names an unknown field '${source}'` });
      else {
        sources.push(source);
        const sourceSchema = fields[source]?.schema;
        if (sourceSchema && scalarOf(sourceSchema).type !== 'string')
          problems.push({ field: at, message: `'${source}' is not a string field` });
      }
    }
    const target = fields[name]!;
    if (scalarOf(target.schema).type !== 'string')
      problems.push({ field: `${annotationPath(name)}.derive`, message: 'only a string field can be derived' });
    if (!target.annotation.provenance.includes('KG_INFERENCE')) {
      problems.push({
        field: `${annotationPath(name)}.provenance`,
        message: 'must allow KG_INFERENCE: derived values are recorded as KG_INFERENCE',
      });
    }
    edges.set(name, sources);
  }
  for (const name of edges.keys()) {
    const cycle = findCycle(name, edges);
    if (cycle) problems.push({ field: `${annotationPath(name)}.derive.from`, message: `derivations form a cycle: ${cycle.join(' ← ')}` });
  }
}

/** The path from `start` back to itself along derivation edges, or null; fields are few (≤ 100). */
function findCycle(start: string, edges: Map<string, string[]>): string[] | null {
  const seen = new Set<string>();
  const walk = (node: string, path: string[]): string[] | null => {
    for (const next of edges.get(node) ?? []) {
      if (next === start) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(start, [start]);
}

function checkIdentity(names: string[], fields: Record<string, StructureField>, problems: FieldIssue[]): string[] {
  const identity = names.filter((n) => fields[n]?.annotation.identity);
  for (const name of identity) {
    const field = fields[name]!;
    if (field.schema.type !== 'string')
      problems.push({ field: `${annotationPath(name)}.identity`, message: 'an identity field must be of type string' });
    if (!field.required) problems.push({ field: `${annotationPath(name)}.identity`, message: 'an identity field must be required' });
  }
  // Only said when every field could be read: a refused annotation may be the missing identity.
  if (identity.length === 0 && names.length > 0 && names.every((n) => fields[n])) {
    problems.push({
      field: 'schema.properties',
      message: 'at least one field must be an identity field (x-knowledge.identity: true, a required string)',
    });
  }
  return identity;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
