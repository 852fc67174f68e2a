import type { Schemas } from '@qdrant/js-client-rest';
import { queryStems } from '../../server/text/query-text.js';
import { countTerms, weightedFrequency } from '../../server/text/term-counts.js';

/**
 * Sparse vectors for Qdrant: the keyword channel's term frequencies and the graph channel's entities.
 *
 * Terms: the embedded index's own term counts for documents (`countTerms`: NFKD, diacritics removed,
 * lower case, letter/digit runs, the FTS5 Porter stemmer) and its query-term selection (`queryTerms`:
 * stop-words dropped, de-duplicated, at most 32, then stemmed alike). A term's index is the 32-bit
 * FNV-1a hash of its UTF-8 stem, so ids are stable across processes and versions without a vocabulary
 * (two stems sharing a hash, about one pair in 10^5 for a 1,000-stem vocabulary, add up into one
 * dimension).
 *
 * A document's `text` value for a term is its column-weighted frequency f (title ×2, content ×1,
 * tags ×1.5, as the embedded index's `bm25(search_fts, 2, 1, 1.5)`), not a BM25 weight: BM25 needs the
 * tenant's document count, the term's document frequency in the tenant and the tenant's average
 * length, which change with every write and must not include other tenants, so the keyword channel
 * computes it at query time from f and the memory's length (keyword.ts).
 */

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

/** What the keyword channel stores of a memory: the `text` vector, its term ids and the token count. */
export interface DocumentTerms {
  /** Term id → column-weighted frequency (null when the memory has no token at all). */
  vector: SparseVector | null;
  /** The vector's indices (the `terms` payload, counted for document frequencies). */
  termIds: number[];
  /** Tokens over title, content and tags, stop-words included (FTS5's document length). */
  length: number;
}

export function documentTerms(doc: { title: string; content: string; tags: readonly string[] }, weights: ColumnWeights): DocumentTerms {
  const { length, counts } = countTerms(doc);
  const values = new Map<number, number>();
  for (const [stem, packed] of counts) {
    const f = weightedFrequency(packed, weights.titleWeight, weights.contentWeight, weights.tagsWeight);
    if (f <= 0) continue;
    const idx = termIndex(stem);
    values.set(idx, (values.get(idx) ?? 0) + f);
  }
  const vector = toSparse(values);
  return { vector, termIds: vector ? [...vector.indices] : [], length };
}

/** A query term as the keyword channel scores it: its id and how often the query names it. */
export interface QueryTerm {
  id: number;
  /**
   * Query terms sharing a stem (FTS5 scores each quoted term of the OR query as its own phrase, so
   * "runs running" counts "run" twice).
   */
  multiplicity: number;
}

/** The query's keyword terms, in the order they first appear (empty when it has no searchable term). */
export function queryTermIds(text: string): QueryTerm[] {
  const out = new Map<number, number>();
  for (const stem of queryStems(text)) {
    const idx = termIndex(stem);
    out.set(idx, (out.get(idx) ?? 0) + 1);
  }
  return [...out].map(([id, multiplicity]) => ({ id, multiplicity }));
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
