import type { SearchResult } from '../../ports/search-index.js';

/**
 * The last step of every search, on both profiles: fused candidates in final order. Those meeting the
 * soft `minQuality` come first (`ok`), then higher scores, then the lower memory id, so two processes
 * (or two profiles) holding the same candidates answer the same page.
 */

export interface RankedCandidate {
  memoryId: string;
  score: number;
  /** 1 when the candidate meets the query's `minQuality`, else 0. */
  ok: number;
}

/** The final order: passing the quality threshold, then score, then memory id. */
export function rankedBefore(a: RankedCandidate, b: RankedCandidate): boolean {
  if (a.ok !== b.ok) return a.ok > b.ok;
  if (a.score !== b.score) return a.score > b.score;
  return a.memoryId < b.memoryId;
}

/** Whether a candidate of this quality meets the soft threshold (none given: every candidate does). */
export function meetsQuality(quality: number, minQuality: number | undefined): number {
  return quality >= (minQuality ?? 0) ? 1 : 0;
}

/** Every candidate put in final order, then the page; `total` counts them all. */
export function rankCandidates(
  candidates: readonly { memoryId: string; score: number; quality: number }[],
  offset: number,
  limit: number,
  minQuality: number | undefined,
): SearchResult {
  const ranked: RankedCandidate[] = candidates.map((c) => ({
    memoryId: c.memoryId,
    score: c.score,
    ok: meetsQuality(c.quality, minQuality),
  }));
  ranked.sort((a, b) => (rankedBefore(a, b) ? -1 : rankedBefore(b, a) ? 1 : 0));
  return { hits: ranked.slice(offset, offset + limit).map(({ memoryId, score }) => ({ memoryId, score })), total: ranked.length };
}
