import type { Schemas } from '@qdrant/js-client-rest';
import { queryStems } from '../../server/text/query-text.js';
import { countTerms, weightedFrequency } from '../../server/text/term-counts.js';

/**
 * Client-side BM25 sparse vectors for Qdrant, built to score like the embedded index's FTS5 `bm25()`.
 *
 * Terms: the embedded index's own term counts for documents (`countTerms`: NFKD, diacritics removed,
 * lower case, letter/digit runs, the FTS5 Porter stemmer) and its query-term selection (`queryTerms`:
 * stop-words dropped, de-duplicated, at most 32, then stemmed alike). A term's index is the 32-bit FNV-1a hash of its UTF-8 stem, so
 * ids are stable across processes and versions without a vocabulary (two stems sharing a hash, about
 * one pair in 10^5 for a 1,000-stem vocabulary, add up into one dimension).
 *
 * Document values: BM25 term-frequency saturation with length normalisation,
 *   f·(k1 + 1) / (f + k1·(1 − b + b·|D| / avgdl)),
 * where f is the column-weighted frequency (title ×2, content ×1, tags ×1.5, as the embedded index's
 * `bm25(search_fts, 2, 1, 1.5)`) and |D| the document's token count (stop-words included, as FTS5
 * counts them). k1 = 1.2 and b = 0.75 are FTS5's own constants. The embedded index uses the live
 * average length; a sparse vector cannot change once written, so avgdl is a fixed expectation, 64
 * tokens: memories are short (a chat turn or a fact is 10–60 tokens; LoCoMo turns average about 25),
 * and a value near the real mean only matters for how much longer-than-average memories are damped.
 *
 * Query values: 1 per query term, summed when two terms share a stem (FTS5 scores each quoted term of
 * the OR query as its own phrase, so "runs running" counts "run" twice). The IDF factor is applied by
 * Qdrant (`modifier: idf`): ln(1 + (N − n + 0.5) / (n + 0.5)) over the whole collection, whereas the
 * embedded index scores per tenant, so its IDF is the tenant's own; it uses, as FTS5 does,
 * ln((N − n + 0.5) / (n + 0.5)) floored at 1e-6. Rankings are therefore close, not identical.
 */

export interface Bm25Params {
  k1: number;
  b: number;
  /** Expected document length in tokens (fixed; see above). */
  avgDocLength: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 1.2, b: 0.75, avgDocLength: 64 };

/** Column weights of the keyword channel; the same shape and defaults as the embedded index's. */
export interface ColumnWeights {
  titleWeight: number;
  contentWeight: number;
  tagsWeight: number;
}

export type SparseVector = Schemas['SparseVector'];

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a of the UTF-8 bytes of `s`, as an unsigned integer (a Qdrant sparse index is a u32). */
export function fnv1a32(s: string): number {
  let h = FNV_OFFSET;
  for (const byte of Buffer.from(s, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** The sparse index of a stemmed term. */
export function termIndex(stem: string): number {
  return fnv1a32(stem);
}

/** Builds a Qdrant sparse vector from index → value, sorted by index, dropping zeros. Null when empty. */
export function toSparse(values: Map<number, number>): SparseVector | null {
  const entries = [...values.entries()].filter(([, v]) => v !== 0 && Number.isFinite(v)).sort((a, b) => a[0] - b[0]);
  if (entries.length === 0) return null;
  return { indices: entries.map(([i]) => i), values: entries.map(([, v]) => v) };
}

/** The `text` vector of a memory (null when it has no token at all). */
export function documentSparseVector(
  doc: { title: string; content: string; tags: readonly string[] },
  weights: ColumnWeights,
  bm25: Bm25Params = DEFAULT_BM25,
): SparseVector | null {
  const { length, counts } = countTerms(doc);
  if (length === 0) return null;
  const norm = bm25.k1 * (1 - bm25.b + (bm25.b * length) / bm25.avgDocLength);
  const values = new Map<number, number>();
  for (const [stem, packed] of counts) {
    const f = weightedFrequency(packed, weights.titleWeight, weights.contentWeight, weights.tagsWeight);
    if (f <= 0) continue;
    const idx = termIndex(stem);
    values.set(idx, (values.get(idx) ?? 0) + (f * (bm25.k1 + 1)) / (f + norm));
  }
  return toSparse(values);
}

/** The `text` query vector (null when the text has no searchable term). */
export function querySparseVector(text: string): SparseVector | null {
  const values = new Map<number, number>();
  for (const stem of queryStems(text)) {
    const idx = termIndex(stem);
    values.set(idx, (values.get(idx) ?? 0) + 1);
  }
  return toSparse(values);
}

/** The sparse index of an entity key (its own vector space, `entities`). */
export function entityIndex(key: string): number {
  return fnv1a32(key);
}

/** The `entities` vector of a memory: 1 per distinct key (null when none). */
export function entitySparseVector(keys: readonly string[]): SparseVector | null {
  const values = new Map<number, number>();
  for (const k of keys) values.set(entityIndex(k), 1);
  return toSparse(values);
}

/** The graph channel's query vector: each entity key with its weight (keys sharing a hash add up). */
export function weightedEntityVector(weights: ReadonlyMap<string, number>): SparseVector | null {
  const values = new Map<number, number>();
  for (const [k, w] of weights) {
    if (!(w > 0)) continue;
    const idx = entityIndex(k);
    values.set(idx, (values.get(idx) ?? 0) + w);
  }
  return toSparse(values);
}
