import type { EmbeddedDatabase } from '../database.js';
import type { MemoryStatus } from '../../../server/ports/search-index.js';
import type { SearchFilterPolicy } from '../../../server/services/search/filter-policy.js';
import { preparedStatement } from '../statement-cache.js';
import { Int8Matrix } from './int8-scan.js';
import { KeywordPostings, type ColumnWeights } from './keyword-postings.js';
import { NamespaceTimeline } from './namespace-timeline.js';
import { TopK } from './top-k.js';
import { topRows } from './top-rows.js';
import { RowMajorRows, type VectorRows } from './vector-rows.js';

export { dot } from './vector-rows.js';

/**
 * In-process copy of one tenant's index documents, kept current from the `search_changes` log: every
 * document's vector (`VectorRows`: int8 rows block-major in WebAssembly memory for the SIMD scan, or a row-major
 * array; row i = document i), its keyword terms (`KeywordPostings`) and the attributes a search needs
 * besides (filter fields, memory id, quality, write time, and each namespace's documents in write order).
 * A search reads them here instead of a row per candidate through libsql. The database stays the source
 * of truth; a cache never answers with a row the log says is gone: before every search it applies the
 * entries written since its last look (by this or any other process), and a search sees the tenant as of
 * that look.
 */

const STATUS_CODE: Record<MemoryStatus, number> = { active: 0, archived: 1, superseded: 2 };

/** A search's filter policy as the cache tests it, row by row (`rowFilter`). */
export interface RowFilter {
  namespaces: Set<string> | null;
  agentId: string | null;
  /** Bit `STATUS_CODE[s]` set for every status the search leaves out. */
  excludedStatusBits: number;
  excludeFlagged: boolean;
}

/** The cache's form of a search's filter policy. */
export function rowFilter(policy: SearchFilterPolicy): RowFilter {
  let excludedStatusBits = 0;
  for (const s of policy.excludedStatuses) excludedStatusBits |= 1 << STATUS_CODE[s];
  return {
    namespaces: policy.namespaces ? new Set(policy.namespaces) : null,
    agentId: policy.agentId,
    excludedStatusBits,
    excludeFlagged: policy.excludeFlagged,
  };
}

interface DocRow {
  doc_id: number;
  memory_id: string;
  namespace: string;
  agent_id: string | null;
  status: MemoryStatus;
  injection_flagged: number;
  quality: number;
  created_at: string;
  terms: string | null;
  vector: ArrayBuffer | Uint8Array | null;
}

const DOC_COLUMNS =
  'd.doc_id, d.memory_id, d.namespace, d.agent_id, d.status, d.injection_flagged, d.quality, d.created_at, d.terms, v.vector';

export class TenantCache {
  readonly tenantId: string;
  readonly dim: number;
  size = 0;
  lastSeq = 0;
  private capacity = 0;
  docIds = new Int32Array(0);
  private status = new Uint8Array(0);
  private flagged = new Uint8Array(0);
  /** 0 for a document without a vector of this index's dimension (e.g. during a reindex): never scored. */
  private hasVector = new Uint8Array(0);
  // float64: min_quality compares it with the value as written (0.7 as float32 is below 0.7).
  private quality = new Float64Array(0);
  /** created_at in epoch milliseconds. */
  private createdAt = new Float64Array(0);
  private namespace: string[] = [];
  private agent: (string | null)[] = [];
  private memoryId: string[] = [];
  private readonly timelines = new Map<string, NamespaceTimeline>();
  readonly position = new Map<number, number>();
  /** Bumped on every change; approximate indexes built on this cache compare it. */
  version = 0;
  /** int8 rows in WebAssembly memory, scanned with SIMD, when the dimension allows it; else a float array. */
  private readonly rows: VectorRows;
  private readonly zeroRow: Uint8Array;
  private readonly keyword = new KeywordPostings();

  /** Documents holding a vector of this index's dimension (the dense channel's rows). */
  vectorCount = 0;

  constructor(tenantId: string, dim: number, options: { simd?: boolean } = {}) {
    this.tenantId = tenantId;
    this.dim = dim;
    this.rows = options.simd !== false && Int8Matrix.supports(dim) ? (newInt8Matrix(dim) ?? new RowMajorRows(dim)) : new RowMajorRows(dim);
    this.zeroRow = new Uint8Array(dim * 4);
  }

  get usesSimd(): boolean {
    return this.rows instanceof Int8Matrix;
  }

  /** Approximate: the rows' storage, the typed columns, ~160 bytes of strings and map entries per document. */
  get bytes(): number {
    return this.rows.bytes + this.keyword.bytes + this.capacity * 23 + this.size * 160 + 1024;
  }

  /**
   * Whether the in-memory keyword index holds every document (false while any was indexed without its
   * term counts, i.e. before they were stored: the keyword channel then asks the FTS5 table).
   */
  get keywordComplete(): boolean {
    return this.keyword.docCount === this.size;
  }

  /** BM25 of every held document matching any of the stems (see `KeywordPostings.score`). */
  keywordScores(stems: readonly string[], weights: ColumnWeights): Map<number, number> {
    return this.keyword.score(stems, weights);
  }

  /** Whether row i holds a vector. */
  hasVectorAt(i: number): boolean {
    return this.hasVector[i] === 1;
  }

  private grow(min: number): void {
    if (min <= this.capacity) return;
    const cap = Math.max(min, Math.ceil(this.capacity * 1.5), 64);
    this.rows.reserve(cap, this.size);
    this.docIds = resized(this.docIds, cap, this.size);
    this.status = resized(this.status, cap, this.size);
    this.flagged = resized(this.flagged, cap, this.size);
    this.hasVector = resized(this.hasVector, cap, this.size);
    this.quality = resized(this.quality, cap, this.size);
    this.createdAt = resized(this.createdAt, cap, this.size);
    this.capacity = cap;
  }

  /**
   * Enters a document in its namespace's timeline. A created_at that does not parse (the service always
   * writes ISO 8601) stays out of every timeline: it has no neighbours and is nobody's, as when the
   * neighbours were found in SQL by time difference.
   */
  private enter(namespace: string, docId: number, time: number, bulk: boolean): void {
    if (Number.isNaN(time)) return;
    let t = this.timelines.get(namespace);
    if (!t) {
      t = new NamespaceTimeline();
      this.timelines.set(namespace, t);
    }
    if (bulk) t.append(docId, time);
    else t.insert(docId, time);
  }

  private leave(namespace: string, docId: number, time: number): void {
    const t = this.timelines.get(namespace);
    if (!t || Number.isNaN(time)) return;
    t.remove(docId, time);
    if (t.size === 0) this.timelines.delete(namespace);
  }

  /** Adds or updates a document; `bulk` appends to the timelines unsorted (a full load seals them). */
  private put(row: DocRow, bulk = false): void {
    const time = Date.parse(row.created_at);
    let i = this.position.get(row.doc_id);
    if (i === undefined) {
      this.grow(this.size + 1);
      i = this.size++;
      this.position.set(row.doc_id, i);
      this.hasVector[i] = 0;
      this.enter(row.namespace, row.doc_id, time, bulk);
    } else if (this.namespace[i] !== row.namespace || !Object.is(this.createdAt[i], time)) {
      this.leave(this.namespace[i]!, row.doc_id, this.createdAt[i]!);
      this.enter(row.namespace, row.doc_id, time, false);
    }
    const withVector = row.vector !== null && row.vector.byteLength === this.dim * 4;
    const bytes = !withVector ? this.zeroRow : row.vector instanceof Uint8Array ? row.vector : new Uint8Array(row.vector!);
    this.rows.set(i, bytes);
    this.vectorCount += (withVector ? 1 : 0) - this.hasVector[i]!;
    this.hasVector[i] = withVector ? 1 : 0;
    this.docIds[i] = row.doc_id;
    this.status[i] = STATUS_CODE[row.status];
    this.flagged[i] = row.injection_flagged;
    this.quality[i] = row.quality;
    this.createdAt[i] = time;
    this.namespace[i] = row.namespace;
    this.agent[i] = row.agent_id;
    this.memoryId[i] = row.memory_id;
    if (row.terms === null || !this.keyword.setEncoded(row.doc_id, row.terms)) this.keyword.remove(row.doc_id);
  }

  private drop(docId: number): void {
    const i = this.position.get(docId);
    if (i === undefined) return;
    this.keyword.remove(docId);
    this.leave(this.namespace[i]!, docId, this.createdAt[i]!);
    this.vectorCount -= this.hasVector[i]!;
    const last = this.size - 1;
    if (i !== last) {
      this.rows.move(last, i);
      const movedDoc = this.docIds[last]!;
      this.docIds[i] = movedDoc;
      this.status[i] = this.status[last]!;
      this.flagged[i] = this.flagged[last]!;
      this.hasVector[i] = this.hasVector[last]!;
      this.quality[i] = this.quality[last]!;
      this.createdAt[i] = this.createdAt[last]!;
      this.namespace[i] = this.namespace[last]!;
      this.agent[i] = this.agent[last]!;
      this.memoryId[i] = this.memoryId[last]!;
      this.position.set(movedDoc, i);
    }
    this.namespace.length = last;
    this.agent.length = last;
    this.memoryId.length = last;
    this.position.delete(docId);
    this.size = last;
  }

  /** Full load of the tenant's documents. */
  load(db: EmbeddedDatabase): void {
    const max = db.prepare('SELECT COALESCE(MAX(seq), 0) AS m FROM search_changes').get() as { m: number };
    const count = db.prepare('SELECT COUNT(*) AS n FROM search_docs WHERE tenant_id = ?').get([this.tenantId]) as { n: number };
    this.size = 0;
    this.vectorCount = 0;
    this.capacity = 0;
    this.position.clear();
    this.timelines.clear();
    this.keyword.clear();
    this.namespace = [];
    this.agent = [];
    this.memoryId = [];
    this.grow(count.n);
    const rows = db
      .prepare(
        `SELECT ${DOC_COLUMNS}
         FROM search_docs d LEFT JOIN search_vectors v ON v.doc_id = d.doc_id
         WHERE d.tenant_id = ?
         ORDER BY d.doc_id`,
      )
      .iterate([this.tenantId]) as IterableIterator<DocRow>;
    for (const row of rows) this.put(row, true);
    for (const t of this.timelines.values()) t.seal();
    this.lastSeq = max.m;
    this.version++;
  }

  /** Applies the change log since the last sync; reloads when the log was pruned past it. */
  sync(db: EmbeddedDatabase, floor: number): void {
    if (this.lastSeq < floor) {
      this.load(db);
      return;
    }
    const changes = preparedStatement(db, 'SELECT seq, doc_id FROM search_changes WHERE tenant_id = ? AND seq > ? ORDER BY seq').all([
      this.tenantId,
      this.lastSeq,
    ]) as { seq: number; doc_id: number }[];
    if (changes.length === 0) return;
    if (changes.some((c) => c.doc_id === 0) || changes.length > Math.max(5000, this.size / 2)) {
      this.load(db);
      return;
    }
    const ids = [...new Set(changes.map((c) => c.doc_id))];
    const found = new Set<number>();
    // `+d.tenant_id`: primary-key lookups of the changed docs, not a walk over the tenant index.
    const stmt = preparedStatement(
      db,
      `SELECT ${DOC_COLUMNS}
       FROM search_docs d LEFT JOIN search_vectors v ON v.doc_id = d.doc_id
       WHERE +d.tenant_id = ? AND d.doc_id IN (SELECT value FROM json_each(?))`,
    );
    for (const row of stmt.iterate([this.tenantId, JSON.stringify(ids)]) as IterableIterator<DocRow>) {
      found.add(row.doc_id);
      this.put(row);
    }
    for (const id of ids) if (!found.has(id)) this.drop(id);
    this.lastSeq = changes[changes.length - 1]!.seq;
    this.version++;
  }

  /** The row of a document, or undefined when the cache does not hold it. */
  rowOf(docId: number): number | undefined {
    return this.position.get(docId);
  }

  memoryIdAt(i: number): string {
    return this.memoryId[i]!;
  }

  qualityAt(i: number): number {
    return this.quality[i]!;
  }

  /** Whether row i passes the filter. */
  accepts(i: number, f: RowFilter): boolean {
    if ((f.excludedStatusBits >> this.status[i]!) & 1) return false;
    if (this.flagged[i] === 1 && f.excludeFlagged) return false;
    if (f.agentId !== null && this.agent[i] !== f.agentId) return false;
    if (f.namespaces !== null && !f.namespaces.has(this.namespace[i]!)) return false;
    return true;
  }

  /** Whether the document is held and passes the filter. */
  acceptsDoc(docId: number, f: RowFilter): boolean {
    const i = this.position.get(docId);
    return i !== undefined && this.accepts(i, f);
  }

  /** Whether row i has a vector and passes the filter (the dense channel's candidates). */
  acceptsVector(i: number, f: RowFilter): boolean {
    return this.hasVector[i] === 1 && this.accepts(i, f);
  }

  /**
   * The documents written just before and just after a held one in its namespace, at most `windowMs`
   * apart from it, that `accepts` takes (null where there is none). The caller makes one predicate per
   * search: making a closure per candidate was a measurable part of the episodic-context step.
   */
  adjacent(docId: number, windowMs: number, accepts: (docId: number) => boolean): { before: number | null; after: number | null } {
    const i = this.position.get(docId);
    if (i === undefined) return { before: null, after: null };
    const line = this.timelines.get(this.namespace[i]!);
    const time = this.createdAt[i]!;
    if (!line || Number.isNaN(time)) return { before: null, after: null };
    return line.neighbours(docId, time, windowMs, accepts);
  }

  /** Cosine (dot product of unit vectors, rows as stored) over every row passing the filter; best `k` first. */
  fullScan(q: Float32Array, k: number, f: RowFilter): { docId: number; score: number }[] {
    const scores = this.rows.scan(q, this.size);
    // Ranked by document id on ties, not by row: rows are in different orders in different processes.
    const top = new TopK(k);
    for (const i of this.best(scores, k, f)) top.push(this.docIds[i]!, scores[i]!);
    return top.sorted().map(([docId, score]) => ({ docId, score }));
  }

  /**
   * The best `k` rows passing the filter, scored exactly, among the `candidates` best by the int8 rows'
   * binary first pass (`Int8Matrix.firstPass`); the full scan when the rows are not int8 or the query has
   * no group dense enough to estimate. Which rows reach the exact step is approximate; their scores and
   * order are exact.
   */
  firstPassScan(q: Float32Array, k: number, f: RowFilter, candidates: number): { docId: number; score: number }[] {
    const matrix = this.rows;
    if (!(matrix instanceof Int8Matrix) || candidates <= k) return this.fullScan(q, k, f);
    const { exact, first } = matrix.firstPass(q, this.size);
    const rows = this.best(first ?? exact, first ? candidates : k, f);
    const rest = first ? matrix.exactOfEstimated(rows) : null;
    const top = new TopK(k);
    for (let j = 0; j < rows.length; j++) top.push(this.docIds[rows[j]!]!, exact[rows[j]!]! + (rest ? rest[j]! : 0));
    return top.sorted().map(([docId, score]) => ({ docId, score }));
  }

  /** The `count` best rows by `scores` (a view the rows returned) that hold a vector and pass the filter. */
  private best(scores: Float32Array, count: number, f: RowFilter): Int32Array {
    const accepts = (i: number) => this.acceptsVector(i, f);
    const matrix = this.rows;
    const above = matrix instanceof Int8Matrix ? (t: number) => matrix.rowsAbove(scores, t) : undefined;
    return topRows(scores, count, accepts, above, this.docIds);
  }

  /** A copy of row i's vector. */
  row(i: number): Float32Array {
    return this.rows.row(i);
  }

  /** dot(row i, q). */
  dotRow(i: number, q: Float32Array): number {
    return this.rows.dot(i, q);
  }
}

/** An int8 matrix, or null when the runtime refuses another WebAssembly memory (one per cached tenant). */
function newInt8Matrix(dim: number): Int8Matrix | null {
  try {
    return new Int8Matrix(dim);
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
}

function resized<T extends Int32Array | Uint8Array | Float32Array | Float64Array>(a: T, capacity: number, used: number): T {
  const out = new (a.constructor as new (n: number) => T)(capacity);
  out.set(a.subarray(0, used));
  return out;
}
