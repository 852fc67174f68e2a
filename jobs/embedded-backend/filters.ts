/**
 * Translation of Agenda's database-agnostic filters (`unique()` keys, `data` filters, remove/disable
 * options) into SQL over the `agenda_jobs` table. Every value is a bound parameter; field names are
 * validated against a closed list or a strict identifier pattern and passed as JSON-path parameters,
 * so no caller-supplied text ever becomes SQL.
 */
import type { RemoveJobsOptions } from 'agenda';

export interface SqlFilter {
  /** Conditions joined with AND; empty means "no criteria". */
  conditions: string[];
  params: unknown[];
}

/** Top-level job fields a `unique()` key may name, and their columns. */
const COLUMNS: Record<string, string> = {
  name: 'name',
  type: 'type',
  priority: 'priority',
  disabled: 'disabled',
  repeatInterval: 'repeat_interval',
  repeatAt: 'repeat_at',
};

const SEGMENT = /^[A-Za-z0-9_-]+$/;

export class UnsupportedFilterError extends Error {
  override name = 'UnsupportedFilterError';
}

/** `a.b.c` → the JSON path `$."a"."b"."c"` (segments validated, then quoted). */
export function jsonPath(segments: string[]): string {
  if (segments.length === 0) return '$';
  for (const s of segments) {
    if (!SEGMENT.test(s)) throw new UnsupportedFilterError(`unsupported field name in a job filter: ${JSON.stringify(s)}`);
  }
  return '$' + segments.map((s) => `."${s}"`).join('');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * One equality condition on a value inside `data`, typed like MongoDB's: a JSON string never equals a
 * number, `null` matches a missing field or JSON null, arrays and objects compare as canonical JSON.
 */
function dataEquals(path: string, value: unknown, out: SqlFilter): void {
  if (value === null || value === undefined) {
    out.conditions.push('json_extract(data, ?) IS NULL');
    out.params.push(path);
  } else if (typeof value === 'boolean') {
    out.conditions.push('json_type(data, ?) = ?');
    out.params.push(path, value ? 'true' : 'false');
  } else if (typeof value === 'number' || typeof value === 'string') {
    out.conditions.push('json_extract(data, ?) = ?');
    out.params.push(path, value);
  } else if (value instanceof Date) {
    // Dates travel through JSON as ISO strings.
    out.conditions.push('json_extract(data, ?) = ?');
    out.params.push(path, value.toISOString());
  } else if (Array.isArray(value) || isPlainObject(value)) {
    out.conditions.push('json_extract(data, ?) = json(?)');
    out.params.push(path, JSON.stringify(value));
  } else {
    throw new UnsupportedFilterError(`unsupported value in a job filter at ${path}`);
  }
}

/** A `unique()` constraint: keys are `data.<path>` or a top-level field; values are compared for equality. */
export function uniqueFilter(name: string, unique: Record<string, unknown>): SqlFilter {
  const out: SqlFilter = { conditions: ['name = ?'], params: [name] };
  for (const [key, value] of Object.entries(unique)) {
    if (key.startsWith('$')) throw new UnsupportedFilterError(`operator ${key} is not supported in a unique() constraint`);
    if (key === 'data') {
      dataFilter(value, out);
      continue;
    }
    if (key.startsWith('data.')) {
      if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
        throw new UnsupportedFilterError(`query operators are not supported in a unique() constraint (${key})`);
      }
      dataEquals(jsonPath(key.slice(5).split('.')), value, out);
      continue;
    }
    const column = COLUMNS[key];
    if (!column) throw new UnsupportedFilterError(`unsupported field in a unique() constraint: ${JSON.stringify(key)}`);
    if (key === 'name') {
      if (value !== name) out.conditions.push('0');
      continue;
    }
    if (value === null || value === undefined) out.conditions.push(`${column} IS NULL`);
    else {
      out.conditions.push(`${column} = ?`);
      out.params.push(key === 'disabled' ? (value ? 1 : 0) : key === 'repeatInterval' ? JSON.stringify(value) : value);
    }
  }
  return out;
}

/**
 * A `data` filter as MongoDB's backend reads it: a plain object matches field by field (nested objects
 * flatten to dotted paths), anything else must equal the whole payload.
 */
export function dataFilter(data: unknown, out: SqlFilter): void {
  if (isPlainObject(data)) {
    const walk = (obj: Record<string, unknown>, prefix: string[]) => {
      for (const [k, v] of Object.entries(obj)) {
        if (k.startsWith('$')) throw new UnsupportedFilterError(`operator ${k} is not supported in a data filter`);
        if (isPlainObject(v)) walk(v, [...prefix, k]);
        else dataEquals(jsonPath([...prefix, k]), v, out);
      }
    };
    walk(data, []);
    return;
  }
  dataEquals('$', data, out);
}

/** The selection of remove/disable/enable: ids, names (or all but some names) and data. */
export function selectionFilter(options: RemoveJobsOptions): SqlFilter {
  const out: SqlFilter = { conditions: [], params: [] };
  if (options.id) {
    out.conditions.push('id = ?');
    out.params.push(String(options.id));
  } else if (Array.isArray(options.ids) && options.ids.length > 0) {
    out.conditions.push('id IN (SELECT value FROM json_each(?))');
    out.params.push(JSON.stringify(options.ids.map(String)));
  }
  if (typeof options.name === 'string' && options.name) {
    out.conditions.push('name = ?');
    out.params.push(options.name);
  } else if (Array.isArray(options.names) && options.names.length > 0) {
    out.conditions.push('name IN (SELECT value FROM json_each(?))');
    out.params.push(JSON.stringify(options.names.filter((n) => typeof n === 'string')));
  } else if (Array.isArray(options.notNames) && options.notNames.length > 0) {
    out.conditions.push('name NOT IN (SELECT value FROM json_each(?))');
    out.params.push(JSON.stringify(options.notNames.filter((n) => typeof n === 'string')));
  }
  if (options.data !== undefined) dataFilter(options.data, out);
  return out;
}
