/**
 * Client-supplied plain field values (`{fields: {name: value}}` of a create or a PATCH) checked against
 * a structure: every problem listed with the field it concerns, or a distinct too-large outcome the
 * service answers with 413. Validators are compiled once per definition (ajv), since creation is hot.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldIssue } from '../../errors.js';
import { FIELD_FORMATS, isPlainObject } from './field-schema.js';
import type { JsonValue } from './model.js';
import type { StructureDefinition } from './structure-definition.js';

/** One string value (or array item), in UTF-8 bytes. */
export const MAX_STRING_VALUE_BYTES = 4 * 1024;
/** The whole field map, serialized as JSON, in UTF-8 bytes. */
export const MAX_FIELDS_BYTES = 64 * 1024;

export interface TooLarge {
  /** The wire path of the oversized value, or null when the map as a whole is too large. */
  field: string | null;
  limitBytes: number;
  message: string;
}

export type FieldValuesOutcome<V> =
  | { ok: true; values: Record<string, V> }
  | { ok: false; reason: 'invalid'; problems: FieldIssue[] }
  | { ok: false; reason: 'too_large'; tooLarge: TooLarge };

// ajv-formats is CommonJS with a default export; under NodeNext its function is `.default`.
const addFormats = addFormatsModule.default;
// One instance: compiled validators are plain functions, the instance only holds formats and options.
const ajv = new Ajv({ allErrors: true, strict: true, logger: false });
addFormats(ajv, [...FIELD_FORMATS]);
// RFC 3986 admits `javascript:` and `data:` URIs, which a portal could render as links and the web
// engine must never fetch: a knowledge `uri` is an absolute http(s) address.
ajv.addFormat('uri', { type: 'string', validate: isWebAddress });

function isWebAddress(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'https:' || protocol === 'http:') && hostname.length > 0;
}

const compiled = new WeakMap<StructureDefinition, Map<string, ValidateFunction>>();

/** Field `name`'s validator, compiled on its first use (ajv takes milliseconds per field) and kept with its definition. */
function validatorOf(definition: StructureDefinition, name: string): ValidateFunction | undefined {
  if (!Object.hasOwn(definition.fields, name)) return undefined;
  let validators = compiled.get(definition);
  if (!validators) compiled.set(definition, (validators = new Map()));
  let validate = validators.get(name);
  if (!validate) {
    const schema = definition.fields[name]!.schema;
    validate = ajv.compile(schema);
    // ajv keeps every compiled schema in its own cache; the WeakMap above must be the only owner.
    ajv.removeSchema(schema);
    validators.set(name, validate);
  }
  return validate;
}

const wirePath = (name: string) => `fields.${name}`;

function describe(error: ErrorObject): string {
  if (error.keyword === 'enum')
    return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return error.message ?? `fails ${error.keyword}`;
}

/**
 * The problems of one non-null value for field `name` (a known field), as messages with their wire
 * paths. Also for engines and migrations checking a value they are about to write.
 */
export function fieldValueProblems(definition: StructureDefinition, name: string, value: unknown): FieldIssue[] {
  const validate = validatorOf(definition, name);
  if (!validate) return [{ field: wirePath(name), message: `unknown field for ${definition.type} ${definition.version}` }];
  const problems: FieldIssue[] = [];
  if (!validate(value)) {
    for (const error of validate.errors ?? []) {
      const suffix = error.instancePath.replaceAll('/', '.');
      problems.push({ field: wirePath(name) + suffix, message: describe(error) });
    }
  }
  if (definition.fields[name]!.annotation.identity && typeof value === 'string' && value.trim() === '') {
    problems.push({ field: wirePath(name), message: 'must not be blank (identity field)' });
  }
  return problems;
}

/** Whether a field may hold `value`: its schema and the size limits a client's write meets (engines' values too). */
export function acceptsFieldValue(definition: StructureDefinition, name: string, value: unknown): boolean {
  return fieldValueProblems(definition, name, value).length === 0 && sizeProblem({ [name]: value }) === null;
}

/** A create's fields: unknown fields refused, required fields present; `null` is the same as omitted. */
export function checkCreateFields(definition: StructureDefinition, input: unknown): FieldValuesOutcome<JsonValue> {
  return checkFields(definition, input, 'create') as FieldValuesOutcome<JsonValue>;
}

/** A PATCH's fields: omitted keeps, `null` clears (refused for a required field), arrays replace. */
export function checkPatchFields(definition: StructureDefinition, input: unknown): FieldValuesOutcome<JsonValue | null> {
  return checkFields(definition, input, 'patch');
}

function checkFields(definition: StructureDefinition, input: unknown, mode: 'create' | 'patch'): FieldValuesOutcome<JsonValue | null> {
  if (!isPlainObject(input))
    return { ok: false, reason: 'invalid', problems: [{ field: 'fields', message: 'must be an object of field values' }] };
  const tooLarge = sizeProblem(input);
  if (tooLarge) return { ok: false, reason: 'too_large', tooLarge };
  const problems: FieldIssue[] = [];
  const values: Record<string, JsonValue | null> = {};
  for (const [name, value] of Object.entries(input)) {
    if (!Object.hasOwn(definition.fields, name)) {
      problems.push({ field: wirePath(name), message: `unknown field for ${definition.type} ${definition.version}` });
    } else if (value === null) {
      if (mode === 'patch' && definition.fields[name]!.required)
        problems.push({ field: wirePath(name), message: 'is required and cannot be cleared' });
      else if (mode === 'patch') values[name] = null;
    } else {
      const found = fieldValueProblems(definition, name, value);
      if (found.length > 0) problems.push(...found);
      else values[name] = value as JsonValue;
    }
  }
  if (mode === 'create') {
    for (const name of definition.fieldNames) {
      if (definition.fields[name]!.required && (input[name] === undefined || input[name] === null)) {
        problems.push({ field: wirePath(name), message: 'is required' });
      }
    }
  }
  return problems.length > 0 ? { ok: false, reason: 'invalid', problems } : { ok: true, values };
}

function sizeProblem(input: Record<string, unknown>): TooLarge | null {
  for (const [name, value] of Object.entries(input)) {
    const strings =
      typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    // A string of at most limit/3 UTF-16 units cannot exceed the limit in UTF-8, so most skip the count.
    const large = strings.find((s) => s.length * 3 > MAX_STRING_VALUE_BYTES && Buffer.byteLength(s, 'utf8') > MAX_STRING_VALUE_BYTES);
    if (large !== undefined) {
      return {
        field: wirePath(name),
        limitBytes: MAX_STRING_VALUE_BYTES,
        message: `a value of ${name} is larger than ${MAX_STRING_VALUE_BYTES} bytes`,
      };
    }
  }
  const serialized = JSON.stringify(input);
  if (serialized.length * 3 > MAX_FIELDS_BYTES && Buffer.byteLength(serialized, 'utf8') > MAX_FIELDS_BYTES) {
    return { field: null, limitBytes: MAX_FIELDS_BYTES, message: `the fields are larger than ${MAX_FIELDS_BYTES} bytes` };
  }
  return null;
}
