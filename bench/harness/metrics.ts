/**
 * Retrieval metrics for the benchmark harness. Pure functions, no I/O.
 *
 * Vocabulary used throughout:
 * - `ranked`: the ids the search returned, best first (for LoCoMo: the dialogue-turn ids, `dia_id`,
 *   that the returned memories map back to). It may hold fewer than k entries and may hold duplicates
 *   (several memories can map to the same turn).
 * - `relevant`: the ids that answer the question (LoCoMo `evidence`). Binary relevance: an id is either
 *   relevant or not; there are no graded judgements.
 *
 * Duplicates: every metric first dedupes `ranked`, keeping the first occurrence of each id, and then
 * takes the top k of the deduped list. A duplicate hit therefore never counts twice (recall can never
 * exceed 1) and a repeated irrelevant id does not push later results down twice either: the list is
 * scored as if the search had returned each id once. This is the reading used by published LoCoMo
 * retrieval evaluations (evidence recall over distinct turns).
 *
 * Empty relevant set: a query with no relevant ids has no defined recall (0/0) and a zero ideal DCG, so
 * it cannot be scored. The dataset loader already drops such questions; the metric functions throw
 * `RangeError` if one slips through, rather than silently returning 0 or 1 and skewing the means.
 */

/** Numeric LoCoMo question category. Only 1–4 are scored; 5 (adversarial) has no answer in the dialogue. */
export type ScoredCategory = 1 | 2 | 3 | 4;

/**
 * Category names, as used by published LoCoMo evaluations of the public `locomo10.json` numbering
 * (the paper's table order differs from the numbers in the file, hence the explicit map).
 */
export const CATEGORY_NAMES: Readonly<Record<ScoredCategory, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

function assertK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}

function assertRelevant(relevant: ReadonlySet<string>): void {
  if (relevant.size === 0) {
    throw new RangeError('relevant set is empty: such a query has no defined score and must be excluded by the caller');
  }
}

/** Dedupe keeping the first occurrence of each id, preserving order. */
export function dedupeRanked(ranked: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranked) {
    if (!seen.has(id)) {
      seen.add(id);
      out.push(id);
    }
  }
  return out;
}

/** The first k distinct ids of `ranked`. */
function topK(ranked: readonly string[], k: number): string[] {
  return dedupeRanked(ranked).slice(0, k);
}

/**
 * recall@k = |relevant ∩ distinct top-k| / |relevant|.
 *
 * "Distinct top-k" is the first k ids of `ranked` after deduping (first occurrence kept). Fewer than k
 * results is fine (the missing positions simply hold nothing relevant). No relevant id in the list → 0.
 * Result is in [0, 1]. Throws `RangeError` for k < 1 or an empty relevant set.
 */
export function recallAtK(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  assertK(k);
  assertRelevant(relevant);
  let hits = 0;
  for (const id of topK(ranked, k)) if (relevant.has(id)) hits++;
  return hits / relevant.size;
}

/**
 * Reciprocal rank = 1 / (1-based rank of the first relevant id in the deduped list), or 0 if no
 * relevant id appears within the first `k` distinct ids (default: the whole list). MRR is the mean of
 * this over queries (see `aggregateScores`). Because deduping happens first, an irrelevant id repeated
 * before the first hit does not lower the rank twice.
 * Throws `RangeError` for an empty relevant set or a k that is not a positive integer (Infinity allowed).
 */
export function reciprocalRank(ranked: readonly string[], relevant: ReadonlySet<string>, k: number = Number.POSITIVE_INFINITY): number {
  if (k !== Number.POSITIVE_INFINITY) assertK(k);
  assertRelevant(relevant);
  const list = dedupeRanked(ranked);
  const limit = Math.min(list.length, k);
  for (let i = 0; i < limit; i++) {
    if (relevant.has(list[i] as string)) return 1 / (i + 1);
  }
  return 0;
}

/**
 * nDCG@k with binary relevance and the standard log2 discount:
 *   DCG@k  = Σ_{i=1..k} rel_i / log2(i + 1), rel_i ∈ {0, 1}, over the distinct top-k
 *   IDCG@k = Σ_{i=1..min(|relevant|, k)} 1 / log2(i + 1)   (all relevant ids ranked first)
 *   nDCG@k = DCG@k / IDCG@k, in [0, 1].
 * Fewer than k results is fine; no relevant id in the list → 0. Throws `RangeError` for k < 1 or an
 * empty relevant set.
 */
export function ndcgAtK(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  assertK(k);
  assertRelevant(relevant);
  let dcg = 0;
  topK(ranked, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  const idealHits = Math.min(relevant.size, k);
  for (let i = 0; i < idealHits; i++) idcg += 1 / Math.log2(i + 2);
  return dcg / idcg;
}

/** The three per-query scores. `rr` is the reciprocal rank (its mean over queries is MRR). */
export interface QueryScore {
  recall: number;
  rr: number;
  ndcg: number;
}

/**
 * All three metrics for one query at cutoff k. The reciprocal rank is also cut at k: the harness asks
 * the search for k results, so a relevant id beyond k would only appear if the server ignored k, and
 * counting it would make MRR depend on server over-fetching.
 */
export function scoreQuery(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): QueryScore {
  return {
    recall: recallAtK(ranked, relevant, k),
    rr: reciprocalRank(ranked, relevant, k),
    ndcg: ndcgAtK(ranked, relevant, k),
  };
}

/** Means over a group of queries. `count` is the number of queries averaged; all means are 0 when it is 0. */
export interface MeanScores {
  count: number;
  recall: number;
  mrr: number;
  ndcg: number;
}

export interface AggregateScores {
  overall: MeanScores;
  /** Only categories with at least one scored query appear. */
  perCategory: Partial<Record<ScoredCategory, MeanScores>>;
}

function mean(scores: readonly QueryScore[]): MeanScores {
  if (scores.length === 0) return { count: 0, recall: 0, mrr: 0, ndcg: 0 };
  let recall = 0;
  let rr = 0;
  let ndcg = 0;
  for (const s of scores) {
    recall += s.recall;
    rr += s.rr;
    ndcg += s.ndcg;
  }
  const n = scores.length;
  return { count: n, recall: recall / n, mrr: rr / n, ndcg: ndcg / n };
}

/**
 * Macro means: every query weighs the same in `overall` (so categories with more questions weigh more,
 * as in published LoCoMo numbers), and each category's mean is over its own queries only.
 */
export function aggregateScores(scored: readonly (QueryScore & { category: ScoredCategory })[]): AggregateScores {
  const byCategory = new Map<ScoredCategory, QueryScore[]>();
  for (const s of scored) {
    const list = byCategory.get(s.category) ?? [];
    list.push(s);
    byCategory.set(s.category, list);
  }
  const perCategory: Partial<Record<ScoredCategory, MeanScores>> = {};
  for (const category of [1, 2, 3, 4] as const) {
    const list = byCategory.get(category);
    if (list) perCategory[category] = mean(list);
  }
  return { overall: mean(scored), perCategory };
}

/**
 * Nearest-rank percentile (p in (0, 100]) of a list of numbers; 0 for an empty list. Nearest-rank is
 * used because it always returns an observed latency, which is what a reader expects of "p95".
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}
