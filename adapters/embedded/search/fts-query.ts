import { queryTerms } from '../../../server/text/query-text.js';

/**
 * Turning user text into a safe FTS5 query. User text never reaches FTS5 syntax: it is split into
 * letter/digit runs (`queryTerms`), stop-words are dropped, and every remaining term is emitted as a
 * double-quoted string, so `"`, `*`, `-`, `(`, `NEAR`, `AND`, `OR`, `NOT` and `:` in the input are inert.
 */

/** Quotes one term as an FTS5 string (doubling any embedded quote, although tokens contain none). */
export function ftsString(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** `"t1" OR "t2" OR ...` over the content columns of a tenant's FTS table, or null when the text has no terms. */
export function buildFtsQuery(text: string): string | null {
  const terms = queryTerms(text);
  if (terms.length === 0) return null;
  return terms.map(ftsString).join(' OR ');
}
