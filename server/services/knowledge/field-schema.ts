/**
 * The JSON Schema subset one field of a knowledge structure may use, and the check of a tenant's
 * property schema against it. The subset is small on purpose: every keyword here has a cheap,
 * predictable validator and a clear meaning for compatibility between versions.
 */
import { z } from 'zod';
import type { FieldIssue } from '../../errors.js';

export const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean'] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];
export const FIELD_TYPES = [...SCALAR_TYPES, 'array'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Formats with a vetted validator (ajv-formats) and an unambiguous meaning. */
export const FIELD_FORMATS = ['email', 'uri', 'date', 'date-time'] as const;
export type FieldFormat = (typeof FIELD_FORMATS)[number];

export type EnumValue = string | number | boolean;

export interface ScalarFieldSchema {
  type: ScalarType;
  enum?: EnumValue[];
  format?: FieldFormat;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  title?: string;
  description?: string;
}

/** A multi-value field: an array of one scalar type. */
export interface ArrayFieldSchema {
  type: 'array';
  items: ScalarFieldSchema;
  maxItems?: number;
  title?: string;
  description?: string;
}

export type FieldSchema = ScalarFieldSchema | ArrayFieldSchema;

/** The property key carrying the knowledge annotation; it is read by field-annotation.ts, not here. */
export const ANNOTATION_KEY = 'x-knowledge';

const nonNegativeInt = z.int({ error: 'must be a non-negative integer' }).min(0, { error: 'must be a non-negative integer' });
const text = (max: number) => z.string({ error: 'must be a string' }).max(max, { error: `must be at most ${max} characters` });

/** Each supported keyword: the types it applies to and the shape of its value. */
const KEYWORDS: Record<string, { appliesTo: readonly FieldType[]; schema: z.ZodType }> = {
  title: { appliesTo: FIELD_TYPES, schema: text(200) },
  description: { appliesTo: FIELD_TYPES, schema: text(2000) },
  enum: {
    appliesTo: SCALAR_TYPES,
    schema: z
      .array(z.union([z.string(), z.number(), z.boolean()]), { error: 'must be an array of strings, numbers or booleans' })
      .min(1, { error: 'must list at least one value' })
      .max(500, { error: 'must list at most 500 values' }),
  },
  format: { appliesTo: ['string'], schema: z.enum(FIELD_FORMATS, { error: `must be one of ${FIELD_FORMATS.join(', ')}` }) },
  minLength: { appliesTo: ['string'], schema: nonNegativeInt },
  maxLength: { appliesTo: ['string'], schema: nonNegativeInt },
  minimum: { appliesTo: ['number', 'integer'], schema: z.number({ error: 'must be a finite number' }) },
  maximum: { appliesTo: ['number', 'integer'], schema: z.number({ error: 'must be a finite number' }) },
  maxItems: { appliesTo: ['array'], schema: nonNegativeInt },
  // Checked by itself below (a nested scalar schema); listed here for applicability.
  items: { appliesTo: ['array'], schema: z.unknown() },
};

/** Keywords refused with a reason rather than the generic "unsupported" message. */
const REFUSED: Record<string, string> = {
  pattern:
    'is not supported: a regular expression from a structure could take exponential time on a crafted value (ReDoS); use enum, format or length limits',
  patternProperties: 'is not supported: regular expressions from structures risk ReDoS',
  $ref: 'is not supported: a field schema must be self-contained',
  default: 'is not supported: a missing value stays missing (a migration plan may set defaults)',
  const: 'is not supported: use enum with one value',
  nullable: 'is not supported: null clears a field; a field schema describes its values',
};

export const SUPPORTED_FIELD_KEYWORDS = Object.keys(KEYWORDS);

type Problems = FieldIssue[];

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

const typeOfValue = (type: ScalarType, v: EnumValue): boolean =>
  type === 'string'
    ? typeof v === 'string'
    : type === 'boolean'
      ? typeof v === 'boolean'
      : typeof v === 'number' && (type === 'number' || Number.isInteger(v));

/**
 * Checks one property schema (without its annotation) at `path`; returns the normalized schema, or
 * null with every problem found. `nested` is true for an array's `items`, which must be a scalar.
 */
export function checkFieldSchema(raw: unknown, path: string, problems: Problems, nested = false): FieldSchema | null {
  if (!isPlainObject(raw)) {
    problems.push({ field: path, message: 'must be a JSON Schema object' });
    return null;
  }
  const before = problems.length;
  const type = checkType(raw.type, path, problems, nested);
  const out: Record<string, unknown> = { type };
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'type' || (key === ANNOTATION_KEY && !nested)) continue;
    const at = `${path}.${key}`;
    const keyword = Object.hasOwn(KEYWORDS, key) ? KEYWORDS[key] : undefined;
    if (!keyword) {
      const reason = Object.hasOwn(REFUSED, key) ? REFUSED[key] : undefined;
      problems.push({
        field: at,
        message:
          key === ANNOTATION_KEY
            ? 'x-knowledge belongs on the field, not on its items'
            : (reason ?? `unsupported JSON Schema keyword '${key}' (supported: ${SUPPORTED_FIELD_KEYWORDS.join(', ')})`),
      });
      continue;
    }
    if (type && !keyword.appliesTo.includes(type)) {
      problems.push({ field: at, message: `does not apply to type ${type} (only to ${keyword.appliesTo.join(', ')})` });
      continue;
    }
    if (key === 'items') {
      out.items = checkFieldSchema(value, at, problems, true);
      continue;
    }
    const parsed = keyword.schema.safeParse(value);
    if (parsed.success) out[key] = parsed.data;
    else for (const issue of parsed.error.issues) problems.push({ field: at, message: issue.message });
  }
  if (type === 'array' && !Object.hasOwn(raw, 'items'))
    problems.push({ field: `${path}.items`, message: 'an array field must declare items' });
  if (type) checkCrossKeywords(out, type, path, problems);
  return problems.length === before ? (out as unknown as FieldSchema) : null;
}

function checkType(raw: unknown, path: string, problems: Problems, nested: boolean): FieldType | null {
  const allowed: readonly string[] = nested ? SCALAR_TYPES : FIELD_TYPES;
  if (typeof raw === 'string' && allowed.includes(raw)) return raw as FieldType;
  let message = `must be one of ${allowed.join(', ')}`;
  if (raw === undefined) message = `is required (${allowed.join(', ')})`;
  else if (Array.isArray(raw)) message = `must be a single type (${allowed.join(', ')}); null is expressed by clearing the field`;
  else if (nested && raw === 'array') message = 'nested arrays are not supported; items must be a scalar type';
  problems.push({ field: `${path}.type`, message });
  return null;
}

/** Rules that involve two keywords: enum values of the declared type, bounds in order. */
function checkCrossKeywords(s: Record<string, unknown>, type: FieldType, path: string, problems: Problems): void {
  if (Array.isArray(s.enum) && type !== 'array') {
    const values = s.enum as EnumValue[];
    if (values.some((v) => !typeOfValue(type, v))) problems.push({ field: `${path}.enum`, message: `every value must be of type ${type}` });
    if (new Set(values).size !== values.length) problems.push({ field: `${path}.enum`, message: 'values must be unique' });
  }
  const pairs: [string, string][] = [
    ['minLength', 'maxLength'],
    ['minimum', 'maximum'],
  ];
  for (const [lo, hi] of pairs) {
    if (typeof s[lo] === 'number' && typeof s[hi] === 'number' && s[lo] > s[hi]) {
      problems.push({ field: `${path}.${lo}`, message: `must not be above ${hi} (${s[lo]} > ${s[hi]})` });
    }
  }
}

/** The scalar part of a field: itself, or its items for a multi-value field. */
export const scalarOf = (s: FieldSchema): ScalarFieldSchema => (s.type === 'array' ? s.items : s);
