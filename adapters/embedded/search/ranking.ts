import type { SearchResult } from '../../../server/ports/search-index.js';
import type { ContextConfig } from '../../../server/services/search/tuning.js';
import type { TranslatedFilter } from './filter-translation.js';
import type { TenantCache } from './tenant-cache.js';
import { TopK } from './top-k.js';

/**
 * The fused candidates in final order: those of at least `minQuality` first (a soft threshold), then by
 * score, ties by memory id. Candidates the cache does not hold (written after its sync) are left out.
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
  const threshold = minQuality ?? 0;
  const keep = offset + limit;
  if (keep > SORTED_PAGE_MAX) return rankAll(c, fused, offset, limit, threshold);
  const page: Ranked[] = [];
  let total = 0;
  for (const [docId, score] of fused) {
    const i = c.rowOf(docId);
    if (i === undefined) continue;
    total++;
    if (keep === 0) continue;
    const ok = c.qualityAt(i) >= threshold ? 1 : 0;
    if (page.length === keep) {
      const last = page[keep - 1]!;
      // Most candidates stop here, before their memory id is even read.
      if (ok < last.ok || (ok === last.ok && score < last.score)) continue;
    }
    const entry: Ranked = { memoryId: c.memoryIdAt(i), score, ok };
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

function rankAll(c: TenantCache, fused: Map<number, number>, offset: number, limit: number, threshold: number): SearchResult {
  const ranked: Ranked[] = [];
  for (const [docId, score] of fused) {
    const i = c.rowOf(docId);
    if (i === undefined) continue;
    ranked.push({ memoryId: c.memoryIdAt(i), score, ok: c.qualityAt(i) >= threshold ? 1 : 0 });
  }
  ranked.sort((a, b) => (rankedBefore(a, b) ? -1 : rankedBefore(b, a) ? 1 : 0));
  return { hits: ranked.slice(offset, offset + limit).map(({ memoryId, score }) => ({ memoryId, score })), total: ranked.length };
}

interface Ranked {
  memoryId: string;
  score: number;
  ok: number;
}

/** The final order: passing the quality threshold, then score, then memory id. */
function rankedBefore(a: Ranked, b: Ranked): boolean {
  if (a.ok !== b.ok) return a.ok > b.ok;
  if (a.score !== b.score) return a.score > b.score;
  return a.memoryId < b.memoryId;
}

/**
 * Episodic context: passes a share of each top candidate's score to the memories written just before
 * and after it in the same namespace (within the window), among those the filters allow. Adds to
 * `fused` in place.
 */
export function spreadToAdjacent(
  c: TenantCache,
  fused: Map<number, number>,
  f: TranslatedFilter,
  adj: ContextConfig,
  weight: number,
): void {
  if (!(weight > 0) || fused.size === 0) return;
  const best = new TopK(adj.candidates);
  for (const [docId, score] of fused) best.push(docId, score);
  const top = best.sorted();
  const bonus = new Map<number, number>();
  const accepts = (docId: number) => c.acceptsDoc(docId, f.filter);
  for (const [docId, score] of top) {
    const { before, after } = c.adjacent(docId, adj.windowMs, accepts);
    for (const n of [before, after]) {
      if (n === null) continue;
      const b = weight * score;
      if (b > (bonus.get(n) ?? 0)) bonus.set(n, b);
    }
  }
  // In place: `fused` is this search's own map (fusion made it), and the bonuses were all computed above.
  for (const [key, b] of bonus) fused.set(key, (fused.get(key) ?? 0) + b);
}
