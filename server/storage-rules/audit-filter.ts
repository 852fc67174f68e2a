/**
 * Which audit events a filtered list returns, decided once for both stores. A type ending in `.` is a
 * prefix (`auth.` → every `auth.*` event), anything else an exact type; both become one range of the
 * stored `type` (binary order), so neither store needs LIKE or regex escaping and the
 * (tenant, type, seq) index answers either. The actor is a user id or an API key id; the time bounds
 * are inclusive and compared as the stored ISO 8601 text.
 */
export interface AuditFilter {
  /** An exact event type (`auth.login`) or a prefix ending in `.` (`auth.`). */
  type?: string;
  /** A user id or an API key id. */
  actor?: string;
  /** created_at ≥ from (ISO 8601, as `toISOString` writes it). */
  from?: string;
  /** created_at ≤ to. */
  to?: string;
}

/** The stored `type` values a filter's type selects: `gte ≤ type < lt`, or exactly `eq`. */
export type AuditTypeRange = { eq: string } | { gte: string; lt: string };

export function auditTypeRange(type: string): AuditTypeRange {
  if (!type.endsWith('.')) return { eq: type };
  // The first string after every string starting with the prefix: its last character plus one.
  const last = type.charCodeAt(type.length - 1);
  return { gte: type, lt: type.slice(0, -1) + String.fromCharCode(last + 1) };
}

/** Time bounds as the stored text compares: any accepted RFC 3339 form becomes `toISOString`'s. */
export function canonicalAuditTime(value: string): string {
  return new Date(value).toISOString();
}
