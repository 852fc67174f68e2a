import type { SearchResult } from '../../../server/ports/search-index.js';
import { contextSeeds, lendToNeighbours } from '../../../server/services/search/episodic-context.js';
import { meetsQuality, rankedBefore, type RankedCandidate } from '../../../server/services/search/ranking.js';
import type { ContextConfig } from '../../../server/services/search/tuning.js';
import type { TranslatedFilter } from './filter-translation.js';
import type { TenantCache } from './tenant-cache.js';

/**
 * The fused candidates in final order (`rankedBefore`, shared with the Qdrant adapter): those of at
 * least `minQuality` first (a soft threshold), then by score, ties by memory id. Candidates the cache does not hold (written after its sync) are left out.
 * Only the first offset + limit are put in order when they are few (a page of 10 among ~200 candidates:
 * a sorted array of ten that most candidates fail to enter at its first comparison, instead of sorting
 * them all); deep pages sort everything.
 */
export function rank(
  c: TenantCache,
  fused: Map<number, number>,
  offset: number,
  limit: number,
  minQuality: number | undefined,
): SearchResult {
  const keep = offset + limit;
  if (keep > SORTED_PAGE_MAX) return rankAll(c, fused, offset, limit, minQuality);
  const page: RankedCandidate[] = [];
  let total = 0;
  for (const [docId, score] of fused) {
    const i = c.rowOf(docId);
    if (i === undefined) continue;
    total++;
    if (keep === 0) continue;
    const ok = meetsQuality(c.qualityAt(i), minQuality);
    if (page.length === keep) {
      const last = page[keep - 1]!;
      // Most candidates stop here, before their memory id is even read.
      if (ok < last.ok || (ok === last.ok && score < last.score)) continue;
    }
    const entry: RankedCandidate = { memoryId: c.memoryIdAt(i), score, ok };
    if (page.length === keep) {
      if (rankedBefore(page[keep - 1]!, entry)) continue;
      page.pop();
    }
    let at = page.length;
    while (at > 0 && rankedBefore(entry, page[at - 1]!)) at--;
    page.splice(at, 0, entry);
  }
  return { hits: page.slice(offset).map(({ memoryId, score }) => ({ memoryId, score })), total };
}

/** Past this many ranked results (offset + limit) every candidate is sorted instead (insertion costs O(page)). */
const SORTED_PAGE_MAX = 64;

function rankAll(c: TenantCache, fused: Map<number, number>, offset: number, limit: number, minQuality: number | undefined): SearchResult {
  const ranked: RankedCandidate[] = [];
  for (const [docId, score] of fused) {
    const i = c.rowOf(docId);
    if (i === undefined) continue;
    ranked.push({ memoryId: c.memoryIdAt(i), score, ok: meetsQuality(c.qualityAt(i), minQuality) });
  }
  ranked.sort((a, b) => (rankedBefore(a, b) ? -1 : rankedBefore(b, a) ? 1 : 0));
  return { hits: ranked.slice(offset, offset + limit).map(({ memoryId, score }) => ({ memoryId, score })), total: ranked.length };
}

/**
 * Episodic context (`server/services/search/episodic-context.ts`, shared with the Qdrant adapter): the
 * seeds' neighbours come from the cache's namespace timelines, among the documents the filter allows.
 * Seeds tie by document number (the index's write order). Adds to `fused` in place.
 */
export function spreadToAdjacent(
  c: TenantCache,
  fused: Map<number, number>,
  f: TranslatedFilter,
  adj: ContextConfig,
  weight: number,
): void {
  if (!(weight > 0) || fused.size === 0) return;
  const accepts = (docId: number) => c.acceptsDoc(docId, f.filter);
  const seeds = contextSeeds(fused, adj.candidates, (a, b) => a < b);
  lendToNeighbours(fused, seeds, weight, (docId) => c.adjacent(docId, adj.windowMs, accepts));
}
