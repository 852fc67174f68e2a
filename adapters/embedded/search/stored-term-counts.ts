import type { TermCounts } from '../../../server/text/term-counts.js';

/**
 * The stored form of a document's term counts, written beside its index row (`search_docs.terms`) so
 * that a process can hold a tenant's keyword index in memory without re-reading its text (the FTS5
 * table is contentless): a JSON array `[length, stem, counts, stem, counts, ...]`.
 */

export function encodeTermCounts(t: TermCounts): string {
  const out: (string | number)[] = [t.length];
  for (const [stem, packed] of t.counts) out.push(stem, packed);
  return JSON.stringify(out);
}

/**
 * Reads the stored form; null when it is not one (a corrupt or foreign value is treated like a missing
 * one: the keyword channel then falls back to the FTS5 table for the tenant).
 */
export function decodeTermCounts(text: string): TermCounts | null {
  const parsed = parseTermCounts(text);
  if (!parsed) return null;
  const counts = new Map<string, number>();
  for (let i = 1; i < parsed.length; i += 2) counts.set(parsed[i] as string, parsed[i + 1] as number);
  return { length: parsed[0] as number, counts };
}

/** The stored form as its checked array `[length, stem, counts, ...]`, or null when it is not one. */
export function parseTermCounts(text: string): (string | number)[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length % 2 !== 1 || !isCount(parsed[0])) return null;
  for (let i = 1; i < parsed.length; i += 2) {
    if (typeof parsed[i] !== 'string' || !isCount(parsed[i + 1])) return null;
  }
  return parsed as (string | number)[];
}

function isCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;
}
