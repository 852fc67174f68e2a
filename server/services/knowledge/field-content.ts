import type { FieldValue, JsonValue } from './model.js';

/**
 * What counts as "a value" and when two values are "the same", decided once for completeness,
 * enrichment decisions and the stale check.
 */

/** A value with content: not null, not a blank string, not an array or object holding nothing with content. */
export function hasContent(value: JsonValue): boolean {
  if (value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.some(hasContent);
  if (typeof value === 'object') return Object.values(value).some(hasContent);
  return true; // numbers and booleans: 0 and false are statements, not gaps
}

/** Filled = holds content, or the client stated there is none (`knownNone`), which counts as an answer. */
export function isFilled(field: FieldValue | undefined): boolean {
  return field !== undefined && (field.knownNone === true || hasContent(field.value));
}

/** The agent owns a field it filled or declared known-none; an inferred value never replaces either. */
export function isAgentOwned(field: FieldValue | undefined): boolean {
  return field !== undefined && isFilled(field) && (field.provenance === 'AGENT_INPUT' || field.knownNone === true);
}

function normalised(value: JsonValue): JsonValue {
  if (typeof value === 'string') return value.normalize('NFKC').trim().replace(/\s+/gu, ' ').toLowerCase();
  if (Array.isArray(value)) return value.map(normalised);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, normalised(value[key] ?? null)]),
    );
  }
  return value;
}

/**
 * A key under which values that say the same thing meet: strings compared after Unicode NFKC, trimming,
 * collapsing inner whitespace and ignoring case ("Acme  Corp" = "acme corp"), object keys in any order.
 * Case is ignored because names, e-mail addresses and domains found in free text vary only in it.
 */
export function sameValueKey(value: JsonValue): string {
  return JSON.stringify(normalised(value));
}

/** The items of a multi-value field: an array's items with content, a lone value as one item, duplicates dropped. */
export function multiItems(value: JsonValue): JsonValue[] {
  const items = Array.isArray(value) ? value : [value];
  const seen = new Set<string>();
  const out: JsonValue[] = [];
  for (const item of items) {
    if (!hasContent(item)) continue;
    const key = sameValueKey(item);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}

/** Exactly the same stored field (no normalisation): a client rewriting "acme" as "Acme" did change it. */
export function sameFieldValue(a: FieldValue | undefined, b: FieldValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  // Compared field by field so a stored `knownNone: undefined` and an absent `knownNone` agree (drivers differ).
  return (
    a.confidence === b.confidence &&
    a.provenance === b.provenance &&
    a.updatedAt === b.updatedAt &&
    (a.knownNone === true) === (b.knownNone === true) &&
    exactKey(a.value) === exactKey(b.value)
  );
}

function exactKey(value: JsonValue): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : inner,
  );
}
