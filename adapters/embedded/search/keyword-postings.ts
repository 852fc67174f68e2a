import { weightedFrequency } from '../../../server/text/term-counts.js';
import { parseTermCounts } from './stored-term-counts.js';

/**
 * One tenant's keyword index in memory: per stem, the documents holding it with their per-column counts
 * and lengths; scored with exactly FTS5's `bm25()` (k1 = 1.2, b = 0.75, IDF ln((N − n + 0.5)/(n + 0.5))
 * floored at 1e-6, column-weighted frequencies, lengths and average over every document of the tenant).
 *
 * Why it exists beside the FTS5 table:
 * - speed: FTS5 reads each match's length from its `docsize` table and walks its posting lists through
 *   the SQLite VM (figures: docs/performance.md#keyword-postings-in-memory); here a match costs a few
 *   array reads;
 * - exactness: a contentless FTS5 table cannot take a deleted or replaced row's tokens off its totals,
 *   so every update (a supersession rewrites the row) leaves its bm25() statistics a little staler;
 *   these are always those of the documents as they are.
 * The tenant cache keeps it current from the same change log as the vectors. The FTS5 table stays the
 * durable index and answers while a tenant holds documents indexed before term counts were stored.
 * `test/unit/keyword-postings.test.ts` checks the scores against FTS5 over the same documents.
 */

const K1 = 1.2;
const B = 0.75;

/**
 * A stem's documents, sorted by doc id (ids grow with each write, so loads and new documents append).
 * Plain arrays, not typed ones: a tenant has tens of thousands of stems, most with a handful of
 * documents, and allocating and regrowing three typed arrays per stem made loading a tenant's postings
 * cost more than reading its rows.
 */
class PostingList {
  readonly docs: number[] = [];
  readonly counts: number[] = [];
  readonly lengths: number[] = [];

  private find(docId: number): number {
    let lo = 0;
    let hi = this.docs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.docs[mid]! < docId) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(docId: number, packed: number, length: number): void {
    const n = this.docs.length;
    if (n === 0 || this.docs[n - 1]! < docId) {
      this.docs.push(docId);
      this.counts.push(packed);
      this.lengths.push(length);
      return;
    }
    const at = this.find(docId);
    this.docs.splice(at, 0, docId);
    this.counts.splice(at, 0, packed);
    this.lengths.splice(at, 0, length);
  }

  remove(docId: number): void {
    const at = this.find(docId);
    if (this.docs[at] !== docId) return;
    this.docs.splice(at, 1);
    this.counts.splice(at, 1);
    this.lengths.splice(at, 1);
  }

  get n(): number {
    return this.docs.length;
  }
}

export interface ColumnWeights {
  title: number;
  content: number;
  tags: number;
}

export class KeywordPostings {
  private readonly termIds = new Map<string, number>();
  private readonly lists: PostingList[] = [];
  /** Per document, the term ids it is listed under (to unlist it) and its token count. */
  private readonly docs = new Map<number, { termIds: Int32Array; length: number }>();
  /** Tokens over every listed document (the average length's numerator). */
  private totalTokens = 0;
  private postings = 0;

  get docCount(): number {
    return this.docs.size;
  }

  /**
   * Approximate memory held, for the cache budget (read for every cached tenant when one is loaded, so
   * from counters: a posting is three array slots and a term id, a stem its list and map entry).
   */
  get bytes(): number {
    return this.postings * 16 + this.docs.size * 96 + this.termIds.size * 160;
  }

  /**
   * Lists a document from its stored term counts (`encodeTermCounts`) without building them first
   * (a tenant's first search reads every document's). False, listing nothing, when the value is not one.
   */
  setEncoded(docId: number, encoded: string): boolean {
    this.remove(docId);
    const parsed = parseTermCounts(encoded);
    if (!parsed) return false;
    const length = parsed[0] as number;
    const ids = new Int32Array((parsed.length - 1) / 2);
    for (let i = 1, k = 0; i < parsed.length; i += 2) ids[k++] = this.list(parsed[i] as string, docId, parsed[i + 1] as number, length);
    this.listed(docId, ids, length);
    return true;
  }

  remove(docId: number): void {
    const doc = this.docs.get(docId);
    if (!doc) return;
    for (const id of doc.termIds) this.lists[id]!.remove(docId);
    this.docs.delete(docId);
    this.totalTokens -= doc.length;
    this.postings -= doc.termIds.length;
  }

  clear(): void {
    this.termIds.clear();
    this.lists.length = 0;
    this.docs.clear();
    this.totalTokens = 0;
    this.postings = 0;
  }

  /**
   * FTS5's bm25() of every document holding any of `stems` (one phrase per stem, repeats counted again
   * as FTS5 counts a repeated phrase of an OR query), higher is better: doc id → score.
   */
  score(stems: readonly string[], w: ColumnWeights): Map<number, number> {
    const out = new Map<number, number>();
    const n = this.docs.size;
    if (n === 0) return out;
    const avgdl = this.totalTokens / n;
    for (const stem of stems) {
      const id = this.termIds.get(stem);
      if (id === undefined) continue;
      const list = this.lists[id]!;
      const hits = list.n;
      if (hits === 0) continue;
      let idf = Math.log((n - hits + 0.5) / (hits + 0.5));
      if (idf <= 0) idf = 1e-6;
      const { docs, counts, lengths } = list;
      for (let j = 0; j < hits; j++) {
        const f = weightedFrequency(counts[j]!, w.title, w.content, w.tags);
        const s = (idf * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * lengths[j]!) / avgdl));
        const doc = docs[j]!;
        out.set(doc, (out.get(doc) ?? 0) + s);
      }
    }
    return out;
  }

  private list(stem: string, docId: number, packed: number, length: number): number {
    let id = this.termIds.get(stem);
    if (id === undefined) {
      id = this.lists.length;
      this.termIds.set(stem, id);
      this.lists.push(new PostingList());
    }
    this.lists[id]!.add(docId, packed, length);
    return id;
  }

  private listed(docId: number, termIds: Int32Array, length: number): void {
    this.docs.set(docId, { termIds, length });
    this.totalTokens += length;
    this.postings += termIds.length;
  }
}
