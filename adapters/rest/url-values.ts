/**
 * The one place where text from a URL (a query-string or path parameter) becomes a number or a
 * boolean, for an input field whose schema wants one. JSON bodies and /trpc inputs never pass here:
 * there a number must be a JSON number. The spellings are strict so that one value has one meaning:
 * - number: optional `-`, decimal digits, optional `.` and digits (`5`, `0.25`, `-1`); not `5abc`,
 *   `""`, ` 5`, `+5`, `1e3`, `0x10`, `Infinity`. The field's schema then checks integer and range.
 * - boolean: `true`, `false`, `1`, `0`.
 * Anything else, and a key given twice (an array), is passed on unchanged for the schema to refuse
 * with 400 naming the field.
 */

const DECIMAL = /^-?[0-9]{1,20}(\.[0-9]{1,20})?$/;

interface ZodLike {
  _zod: { def: { type: string; innerType?: ZodLike } };
}

/** The field's own type under optional, nullable and default wrappers. */
function baseType(schema: ZodLike): string {
  let s = schema;
  for (let depth = 0; s._zod.def.innerType && depth < 8; depth++) s = s._zod.def.innerType;
  return s._zod.def.type;
}

export function urlValue(schema: unknown, value: unknown): unknown {
  if (typeof value !== 'string' || typeof (schema as Partial<ZodLike> | null)?._zod?.def?.type !== 'string') return value;
  switch (baseType(schema as ZodLike)) {
    case 'number':
      return DECIMAL.test(value) ? Number(value) : value;
    case 'boolean':
      return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;
    default:
      return value;
  }
}
