import type { Schemas } from '@qdrant/js-client-rest';
import { TEXT_VECTOR } from './schema.js';
import type { QueryTerm } from './sparse.js';

/**
 * The keyword channel on Qdrant: FTS5's `bm25()` over the tenant's own memories, computed by Qdrant at
 * query time from statistics of that tenant alone, so no other tenant's data moves a tenant's scores.
 *
 *   bm25(D) = Σ over query terms t of idf(t) · f(t, D) · (k1 + 1) / (f(t, D) + k1 · (1 − b + b · |D| / avgdl))
 *
 * with FTS5's constants (k1 = 1.2, b = 0.75) and its IDF, ln((N − n + 0.5) / (n + 0.5)) floored at
 * 1e-6, where N is the tenant's memories (every status), n those holding t and avgdl the tenant's
 * average length, exactly as the embedded index's in-process postings score (keyword-postings.ts).
 * f is the memory's column-weighted frequency (its `text` vector) and |D| its `doc_length` payload.
 *
 * The statistics are read before the search (`keywordStatistics` requests): N and each n are exact
 * counts over the tenant (n through the indexed `terms` payload), the total length a facet of the
 * tenant's `doc_length` values. The search is one Query API request: a prefetch per query term on
 * `text` (the query {t: 1} scores a memory by f(t, D); its limit covers every memory holding t, up to
 * `termLimit`) and a formula query that evaluates the sum above for their union. Past `termLimit`
 * holders a prefetch keeps those of highest raw f(t, D), not of highest length-normalised score, and
 * the term's IDF is not then necessarily small (only n > N/2 floors it): see docs/search-qdrant.md,
 * "Common terms".
 */

export const KEYWORD_K1 = 1.2;
export const KEYWORD_B = 0.75;

/** FTS5's IDF of a term held by `n` of `docs` documents (floored, as FTS5 floors it, at 1e-6). */
export function fts5Idf(n: number, docs: number): number {
  const idf = Math.log((docs - n + 0.5) / (n + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** What the keyword formula needs of the tenant, read before the search. */
export interface KeywordStatistics {
  /** The tenant's memories, every status (FTS5's N). */
  docs: number;
  /** Their tokens, summed (N · avgdl). */
  totalLength: number;
  /** Per query term id, the tenant's memories holding it (FTS5's n). */
  frequencies: ReadonlyMap<number, number>;
}

/** The tenant's memories and their summed length from a facet of `doc_length` values (value → count). */
export function lengthTotals(hits: readonly { value: unknown; count: number }[]): { docs: number; totalLength: number } {
  let docs = 0;
  let totalLength = 0;
  for (const h of hits) {
    const value = typeof h.value === 'number' ? h.value : Number(h.value);
    if (!Number.isFinite(value) || !(h.count > 0)) continue;
    docs += h.count;
    totalLength += value * h.count;
  }
  return { docs, totalLength };
}

/** Most distinct `doc_length` values one facet returns: far above any tenant's (a memory is at most 64 KiB by default). */
export const LENGTH_FACET_LIMIT = 1_000_000;

export interface KeywordRequestInput {
  terms: readonly QueryTerm[];
  statistics: KeywordStatistics;
  /** The search's tenant filter (`tenantFilter` with the query's filter policy). */
  filter: Schemas['Filter'];
  /** Candidates to return (≥ offset + limit). */
  depth: number;
  /** Most memories one term's prefetch reads (a term held by more is read only that far). */
  termLimit: number;
  /** Payload fields each candidate comes back with. */
  withPayload: string[];
}

/**
 * The keyword channel's Query API request, or null when no query term is held by any memory of the
 * tenant. Terms the tenant does not hold are left out (FTS5 gives them no score either).
 */
export function keywordRequest(p: KeywordRequestInput): Schemas['QueryRequest'] | null {
  const { docs, totalLength, frequencies } = p.statistics;
  if (!(docs > 0)) return null;
  const held = p.terms.filter((t) => (frequencies.get(t.id) ?? 0) > 0);
  if (held.length === 0) return null;
  const avgdl = totalLength / docs;
  // k1 · b · |D| / avgdl; with an average of 0 (every memory empty) no memory holds a term.
  const perToken = avgdl > 0 ? (KEYWORD_K1 * KEYWORD_B) / avgdl : 0;
  const terms = held.map((t, i): Schemas['Expression'] => {
    const score = `$score[${i}]`;
    const idf = fts5Idf(frequencies.get(t.id)!, docs);
    return {
      mult: [
        t.multiplicity * idf * (KEYWORD_K1 + 1),
        {
          div: {
            left: score,
            right: { sum: [score, KEYWORD_K1 * (1 - KEYWORD_B), { mult: [perToken, 'doc_length'] }] },
          },
        },
      ],
    };
  });
  return {
    prefetch: held.map((t) => ({
      query: { indices: [t.id], values: [1] },
      using: TEXT_VECTOR,
      filter: p.filter,
      // Every holder that passes the filter (the count may be a write behind: a little room), up to the
      // limit; past it, the holders of highest raw frequency (Qdrant ranks the prefetch before the formula).
      limit: Math.min(p.termLimit, frequencies.get(t.id)! + 16),
    })),
    query: { formula: terms.length === 1 ? terms[0]! : { sum: terms }, defaults: { doc_length: 0 } },
    filter: p.filter,
    limit: p.depth,
    with_payload: p.withPayload,
  };
}
