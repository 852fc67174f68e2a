import type { EmbeddedDatabase } from './database.js';
import { preparedStatement, type Statement } from './statement-cache.js';
import { fuse, type Channel, type ChannelHit } from './search/fusion.js';
import { IvfIndex, type IvfOptions } from './search/ivf.js';
import { buildFtsQuery } from './search/fts-query.js';
import {
  deleteIndexRows,
  deleteTenantRows,
  ensureIndexInfo,
  ftsTable,
  localIndexWrites,
  markReindexComplete,
  readReindexIncomplete,
  writeIndexRows,
} from './search/rows.js';
import { rowFilter, TenantCache, type RowFilter } from './search/tenant-cache.js';
import { TopK } from './search/top-k.js';
import { extractEntities, singularize } from '../../server/text/entities.js';
import { queryStems, queryTerms } from '../../server/text/query-text.js';
import { resolveSearchFilter } from '../../server/services/search/filter-policy.js';
import {
  DEFAULT_CONTEXT,
  DEFAULT_FUSION,
  DEFAULT_GRAPH,
  DEFAULT_KEYWORD,
  type ContextConfig,
  type FusionConfig,
  type GraphConfig,
  type KeywordConfig,
} from '../../server/services/search/tuning.js';
import {
  SEARCH_MODES,
  type IndexInfo,
  type IndexedMemory,
  type SearchFilters,
  type SearchIndex,
  type SearchMode,
  type SearchQuery,
  type SearchResult,
} from '../../server/ports/search-index.js';

export { writeIndexRows, deleteIndexRows, deleteTenantRows, resetIndexForModel, readIndexInfo } from './search/rows.js';

export interface EmbeddedSearchIndexOptions {
  fusion?: FusionConfig;
  graph?: GraphConfig;
  context?: ContextConfig;
  keyword?: KeywordConfig;
  /**
   * A tenant with more vectors than this is searched through an approximate (IVF) index built in the
   * background; below it (and until the index is ready) the dense channel scans every row. Default
   * 200 000: measured at 100k x 512 (bench/search-speed.ts, float rows then), the SIMD full scan took
   * ~40 ms on a loaded 2-core machine, while IVF at 24 probes took ~11 ms at only 0.58 recall@10 against
   * it (64 probes: 33 ms, 0.77) on the synthetic corpus, and building it took minutes: scoring every row
   * is worth it there (the int8 scan now takes ~4.5 ms at 100k x 1,280).
   */
  annThreshold?: number;
  ivf?: Partial<IvfOptions>;
  /**
   * A tenant with more vectors than this (up to `annThreshold`) is scanned in two steps: a binary first
   * pass estimates the query's dense groups from each row's signs (`Int8Matrix.firstPass`), then the
   * `firstPassCandidates` best rows (at least 4 × the channel's depth) are scored exactly. Default
   * 50,000: below it the full int8 scan is cheap (~0.4 ms at 10k), above it the semantic part of every row
   * is most of the scan's memory traffic. Recall against the full scan: `bench/search-http.ts` reports it
   * (at 100k on the synthetic corpus, 1,000 candidates: see README).
   */
  firstPassThreshold?: number;
  /** Rows scored exactly after the binary first pass (default 1,000). */
  firstPassCandidates?: number;
  /** Memory budget of the in-process tenant caches, in bytes (least recently used tenants go first). */
  vectorCacheBytes?: number;
  /**
   * Most tenant caches held at once (least recently used go first). Each holds a WebAssembly memory,
   * and V8 refuses new ones past ~13,000 per process, whatever their size. Default 2,000.
   */
  maxCachedTenants?: number;
  /** Candidates each channel contributes before fusion (at least offset + limit). */
  candidateDepth?: number;
}

/** Per-call overrides, for benchmarks and tuning; not part of the port. */
export interface SearchTuning {
  fusion?: FusionConfig;
  graph?: GraphConfig;
  context?: ContextConfig;
  /** Force the full dense scan (every row scored exactly) above the first-pass and ANN thresholds (to measure their recall). */
  exact?: boolean;
  /** IVF cells probed, instead of the configured number. */
  probes?: number;
  /** Answer the keyword channel from the FTS5 table even when the in-memory postings are complete (parity tests). */
  fts5?: boolean;
}

export type ChannelName = 'keyword' | 'dense' | 'graph';

interface Normalised {
  filter: RowFilter;
  sql: string;
  params: unknown[];
}

/**
 * The search index of the embedded profile: BM25 over one FTS5 table per tenant (answered from the in-process
 * tenant cache's postings, which score identically), dense vectors (a full int8 scan of that cache, or IVF above a
 * threshold) and an entity graph, on the same libsql database as the rest of the embedded profile. See docs in the
 * port and in `search/rows.ts` for transactional writes.
 */
export class EmbeddedSearchIndex implements SearchIndex {
  private readonly info: IndexInfo;
  private readonly fusion: FusionConfig;
  private readonly graph: GraphConfig;
  private readonly context: ContextConfig;
  private readonly keyword: KeywordConfig;
  private readonly annThreshold: number;
  private readonly firstPassThreshold: number;
  private readonly firstPassCandidates: number;
  private readonly ivfOptions: Partial<IvfOptions>;
  private readonly cacheBytes: number;
  private readonly maxCachedTenants: number;
  private readonly candidateDepth: number;
  private readonly caches = new Map<string, TenantCache>();
  /** Each cache's change stamp (`changeStamp`) when it last caught up with the change log. */
  private readonly syncedUnder = new WeakMap<TenantCache, string>();
  private readonly ivfs = new Map<string, IvfIndex>();

  constructor(
    private readonly db: EmbeddedDatabase,
    configured: IndexInfo,
    options: EmbeddedSearchIndexOptions = {},
  ) {
    this.info = ensureIndexInfo(db, configured);
    this.fusion = options.fusion ?? DEFAULT_FUSION;
    this.graph = options.graph ?? DEFAULT_GRAPH;
    this.context = options.context ?? DEFAULT_CONTEXT;
    this.keyword = options.keyword ?? DEFAULT_KEYWORD;
    this.annThreshold = options.annThreshold ?? 200_000;
    this.firstPassThreshold = options.firstPassThreshold ?? 50_000;
    this.firstPassCandidates = options.firstPassCandidates ?? 1000;
    this.ivfOptions = options.ivf ?? {};
    this.cacheBytes = options.vectorCacheBytes ?? 1024 * 1024 * 1024;
    this.maxCachedTenants = Math.max(1, options.maxCachedTenants ?? 2_000);
    this.candidateDepth = options.candidateDepth ?? 100;
  }

  indexInfo(): IndexInfo {
    return { ...this.info };
  }

  reindexIncomplete(): boolean {
    return readReindexIncomplete(this.db);
  }

  async completeReindex(): Promise<void> {
    markReindexComplete(this.db);
  }

  async upsert(tenantId: string, doc: IndexedMemory): Promise<void> {
    this.db.transaction(() => writeIndexRows(this.db, tenantId, doc))();
  }

  /** Many documents in one transaction (bulk loads, reindex). */
  async upsertMany(tenantId: string, docs: IndexedMemory[]): Promise<void> {
    this.db.transaction(() => {
      for (const d of docs) writeIndexRows(this.db, tenantId, d);
    })();
  }

  async remove(tenantId: string, memoryId: string): Promise<void> {
    this.db.transaction(() => deleteIndexRows(this.db, tenantId, memoryId))();
  }

  async removeTenant(tenantId: string): Promise<void> {
    this.db.transaction(() => deleteTenantRows(this.db, tenantId))();
    this.caches.delete(tenantId);
    this.ivfs.get(tenantId)?.cancel();
    this.ivfs.delete(tenantId);
  }

  async close(): Promise<void> {
    for (const ivf of this.ivfs.values()) ivf.cancel();
    this.ivfs.clear();
    this.caches.clear();
  }

  async search(tenantId: string, query: SearchQuery, tuning: SearchTuning = {}): Promise<SearchResult> {
    const limit = query.limit;
    const offset = query.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
    if (!Number.isInteger(offset) || offset < 0) throw new RangeError(`offset must be a non-negative integer, got ${offset}`);
    if (!SEARCH_MODES.includes(query.mode)) throw new RangeError(`unknown search mode ${String(query.mode)}`);
    if (query.vector && query.vector.length !== this.info.dimension) {
      throw new RangeError(`query vector has ${query.vector.length} dimensions, the index holds ${this.info.dimension}`);
    }
    if (query.mode === 'vector-only' && !query.vector) throw new RangeError('vector-only search needs a query vector');
    const f = normaliseFilters(tenantId, query.filters);
    if (!f) return { hits: [], total: 0 };
    const depth = Math.max(this.candidateDepth, offset + limit);
    const fusion = tuning.fusion ?? this.fusion;
    // Every step below reads the tenant as of this sync: a document committed afterwards is left out.
    const c = this.cache(tenantId);

    const channels: Channel[] = [];
    if (query.mode === 'vector-only') {
      channels.push({ name: 'dense', weight: 1, hits: this.denseChannel(c, query.vector!, depth, f, tuning.exact, tuning.probes) });
    } else {
      const w = query.mode === 'hybrid' ? { ...fusion.weights.hybrid, graph: 0 } : fusion.weights['hybrid+graph'];
      if (w.keyword > 0) channels.push({ name: 'keyword', weight: w.keyword, hits: this.keywordChannel(c, query.text, depth, f, tuning.fts5) });
      if (w.dense > 0 && query.vector) {
        channels.push({ name: 'dense', weight: w.dense, hits: this.denseChannel(c, query.vector, depth, f, tuning.exact, tuning.probes) });
      }
      if (w.graph > 0) {
        channels.push({ name: 'graph', weight: w.graph, hits: this.graphChannel(c, query.text, depth, f, tuning.graph ?? this.graph) });
      }
    }
    const live = channels.filter((ch) => ch.hits.length > 0);
    const fused = live.length === 1 ? new Map(live[0]!.hits.map((h) => [h.key, h.score])) : fuse(live, fusion.method);
    const context = tuning.context ?? this.context;
    spreadToAdjacent(c, fused, f, context, context.weight[query.mode]);
    return rank(c, fused, offset, limit, query.filters.minQuality);
  }

  /** One channel alone, best first (benchmarks: `keyword` is plain BM25). */
  channelSearch(tenantId: string, channel: ChannelName, query: SearchQuery, tuning: SearchTuning = {}): Promise<SearchResult> {
    const f = normaliseFilters(tenantId, query.filters);
    if (!f) return Promise.resolve({ hits: [], total: 0 });
    const c = this.cache(tenantId);
    const depth = Math.max(this.candidateDepth, (query.offset ?? 0) + query.limit);
    const hits =
      channel === 'keyword'
        ? this.keywordChannel(c, query.text, depth, f, tuning.fts5)
        : channel === 'dense'
          ? query.vector
            ? this.denseChannel(c, query.vector, depth, f, tuning.exact, tuning.probes)
            : []
          : this.graphChannel(c, query.text, depth, f, tuning.graph ?? this.graph);
    return Promise.resolve(rank(c, new Map(hits.map((h) => [h.key, h.score])), query.offset ?? 0, query.limit, query.filters.minQuality));
  }

  private prepare(sql: string): Statement {
    return preparedStatement(this.db, sql);
  }

  // ---- keyword channel: BM25, in memory or over the tenant's own FTS5 table ------------------------

  private keywordChannel(c: TenantCache, text: string, depth: number, f: Normalised, fts5 = false): ChannelHit[] {
    if (!fts5 && c.keywordComplete) return this.keywordInMemory(c, text, depth, f);
    return this.keywordFts5(c, text, depth, f);
  }

  /** The same BM25 as FTS5's bm25() with the same weights, over the cache's postings; filtered exactly. */
  private keywordInMemory(c: TenantCache, text: string, depth: number, f: Normalised): ChannelHit[] {
    const k = this.keyword;
    const scores = c.keywordScores(queryStems(text), { title: k.titleWeight, content: k.contentWeight, tags: k.tagsWeight });
    // At 100k memories a query matches thousands: the filter runs only for those that could still rank.
    const top = new TopK(depth);
    for (const [key, score] of scores) {
      if (score < top.minScore || !c.acceptsDoc(key, f.filter)) continue;
      top.push(key, score);
    }
    return top.sorted().map(([key, score]) => ({ key, score }));
  }

  private keywordFts5(c: TenantCache, text: string, depth: number, f: Normalised): ChannelHit[] {
    const table = ftsTable(this.db, c.tenantId, false);
    if (!table) return [];
    const match = buildFtsQuery(text);
    if (!match) return [];
    const k = this.keyword;
    const bm25 = `bm25(${table}, ${num(k.titleWeight)}, ${num(k.contentWeight)}, ${num(k.tagsWeight)})`;
    // The FTS table alone, filtered here against the cache: joining search_docs for the filter cost a
    // row lookup per match. A few more rows than needed are read, since the filter may drop some; when
    // it drops more than that, the query runs again with the filter in SQL.
    const fetch = depth + (depth >> 2) + 8;
    const rows = this.prepare(`SELECT rowid AS doc_id, ${bm25} AS rank FROM ${table} WHERE ${table} MATCH ? ORDER BY rank LIMIT ?`).all([
      match,
      fetch,
    ]) as { doc_id: number; rank: number }[];
    let kept = rows.filter((r) => c.acceptsDoc(r.doc_id, f.filter));
    if (kept.length < depth && rows.length === fetch) {
      kept = (
        this.prepare(
          `SELECT d.doc_id AS doc_id, ${bm25} AS rank
           FROM ${table} CROSS JOIN search_docs d ON d.doc_id = ${table}.rowid
           WHERE ${table} MATCH ? AND ${f.sql}
           ORDER BY rank LIMIT ?`,
        ).all([match, ...f.params, depth]) as { doc_id: number; rank: number }[]
      ).filter((r) => c.acceptsDoc(r.doc_id, f.filter));
    }
    // FTS5's bm25() is lower-is-better; negate so every channel is higher-is-better.
    return kept.slice(0, depth).map((r) => ({ key: r.doc_id, score: -r.rank }));
  }

  // ---- dense channel ---------------------------------------------------------------------------------

  /** The tenant's cache, brought up to date with the change log. */
  private cache(tenantId: string): TenantCache {
    let c = this.caches.get(tenantId);
    // Read before the change log: a commit after this point changes the stamp, so the next search looks.
    const stamp = this.changeStamp();
    if (!c) {
      c = new TenantCache(tenantId, this.info.dimension);
      c.load(this.db);
      this.caches.set(tenantId, c);
      this.evict(tenantId);
    } else {
      // Nothing committed since the last look (by any connection): the change log has nothing new.
      // Most searches end here; reading the log costs two statements, more once another process's
      // commit has emptied this connection's page cache.
      if (this.syncedUnder.get(c) !== stamp) {
        const floorRow = this.prepare("SELECT value FROM search_meta WHERE key = 'changes_floor'").get([]) as { value: string } | undefined;
        c.sync(this.db, floorRow ? Number(floorRow.value) : 0);
      }
      // Refresh LRU order.
      this.caches.delete(tenantId);
      this.caches.set(tenantId, c);
    }
    this.syncedUnder.set(c, stamp);
    return c;
  }

  /** Changes when any connection commits (`data_version`: the others; `localIndexWrites`: this one). */
  private changeStamp(): string {
    const { data_version } = this.prepare('PRAGMA data_version').get([]) as { data_version: number };
    return `${data_version}:${localIndexWrites(this.db)}`;
  }

  private evict(keep: string): void {
    let total = 0;
    for (const c of this.caches.values()) total += c.bytes;
    let count = this.caches.size;
    for (const [id, c] of this.caches) {
      if (total <= this.cacheBytes && count <= this.maxCachedTenants) break;
      if (id === keep) continue;
      total -= c.bytes;
      count--;
      this.caches.delete(id);
      this.ivfs.get(id)?.cancel();
      this.ivfs.delete(id);
    }
  }

  private denseChannel(c: TenantCache, q: Float32Array, depth: number, f: Normalised, exact = false, probes?: number): ChannelHit[] {
    if (c.vectorCount === 0) return [];
    let hits: { docId: number; score: number }[];
    if (!exact && c.vectorCount > this.annThreshold) {
      let ivf = this.ivfs.get(c.tenantId);
      if (!ivf) {
        ivf = new IvfIndex(c, this.ivfOptions);
        this.ivfs.set(c.tenantId, ivf);
      }
      hits = ivf.search(q, depth, f.filter, probes) ?? c.fullScan(q, depth, f.filter);
    } else if (!exact && c.vectorCount > this.firstPassThreshold) {
      hits = c.firstPassScan(q, depth, f.filter, Math.max(this.firstPassCandidates, 4 * depth));
    } else {
      hits = c.fullScan(q, depth, f.filter);
    }
    return hits.map((h) => ({ key: h.docId, score: h.score }));
  }

  /** Which dense search a tenant's queries get now (benchmarks report the recall of the approximate ones). */
  denseStrategy(tenantId: string): 'full scan' | 'binary first pass' | 'ivf' {
    const c = this.cache(tenantId);
    if (c.vectorCount > this.annThreshold) return this.ivfs.get(tenantId)?.ready ? 'ivf' : 'full scan';
    if (c.vectorCount > this.firstPassThreshold && c.usesSimd) return 'binary first pass';
    return 'full scan';
  }

  /** Tenants whose cache this process holds (tests of the eviction). */
  get cachedTenantCount(): number {
    return this.caches.size;
  }

  /** Whether the approximate index of a tenant is built and current (benchmarks wait on it). */
  annReady(tenantId: string): boolean {
    const ivf = this.ivfs.get(tenantId);
    return ivf ? ivf.ready : false;
  }

  /** Builds the approximate index of a tenant now (or waits for the background build) when above the threshold. */
  async warm(tenantId: string): Promise<void> {
    const c = this.cache(tenantId);
    if (c.vectorCount <= this.annThreshold) return;
    let ivf = this.ivfs.get(tenantId);
    if (!ivf) {
      ivf = new IvfIndex(c, this.ivfOptions);
      this.ivfs.set(tenantId, ivf);
    }
    await ivf.whenReady();
  }

  // ---- graph channel -----------------------------------------------------------------------------

  private graphChannel(c: TenantCache, text: string, depth: number, f: Normalised, g: GraphConfig): ChannelHit[] {
    const tenantId = c.tenantId;
    const terms = queryTerms(text).map(singularize);
    const keys = new Set<string>(extractEntities(text, { max: 24 }).map((e) => e.key));
    for (const t of terms) keys.add(t);
    for (let i = 0; i + 1 < terms.length; i++) keys.add(`${terms[i]} ${terms[i + 1]}`);
    if (keys.size === 0) return [];
    const tenant = this.prepare('SELECT doc_count FROM search_tenants WHERE tenant_id = ?').get([tenantId]) as
      | { doc_count: number }
      | undefined;
    const n = Math.max(1, tenant?.doc_count ?? 0);
    const idf = (df: number) => Math.log(1 + n / Math.max(1, df));
    const seeds = (
      this.prepare(
        `SELECT entity_id, doc_count FROM search_entities
         WHERE tenant_id = ? AND key IN (SELECT value FROM json_each(?)) AND doc_count > 0`,
      ).all([tenantId, JSON.stringify([...keys])]) as { entity_id: number; doc_count: number }[]
    ).filter((s) => s.doc_count <= g.maxDocFrequency);
    if (seeds.length === 0) return [];
    const weight = new Map<number, number>();
    const df = new Map<number, number>();
    for (const s of seeds) {
      weight.set(s.entity_id, idf(s.doc_count));
      df.set(s.entity_id, s.doc_count);
    }
    if (g.hopWeight > 0 && g.neighborsPerSeed > 0) {
      // The strongest co-occurrences of each seed (hubs mentioned everywhere are not expanded: their
      // neighbours say little), then the related entities' own frequencies.
      const strongest = this.prepare('SELECT b, weight FROM search_edges WHERE a = ? ORDER BY weight DESC, b LIMIT ?');
      const edges: { a: number; b: number; w: number }[] = [];
      for (const s of seeds) {
        if (s.doc_count > g.maxExpandFrequency) continue;
        for (const e of strongest.all([s.entity_id, g.neighborsPerSeed * 4]) as { b: number; weight: number }[]) {
          edges.push({ a: s.entity_id, b: e.b, w: e.weight });
        }
      }
      const dfs = new Map(
        (
          this.prepare(
            // `+tenant_id`: primary-key lookups, not a walk over every entity of the tenant.
            `SELECT entity_id, doc_count FROM search_entities WHERE +tenant_id = ? AND entity_id IN (SELECT value FROM json_each(?))`,
          ).all([tenantId, JSON.stringify([...new Set(edges.map((e) => e.b))])]) as { entity_id: number; doc_count: number }[]
        ).map((r) => [r.entity_id, r.doc_count]),
      );
      const bySeed = new Map<number, { b: number; score: number }[]>();
      for (const e of edges) {
        const edf = dfs.get(e.b);
        if (edf === undefined || edf > g.maxDocFrequency) continue;
        // Association: co-occurrences over the geometric mean of the two frequencies (cosine of the
        // incidence vectors), times the related entity's own specificity.
        const assoc = e.w / Math.sqrt(df.get(e.a)! * Math.max(1, edf));
        const list = bySeed.get(e.a) ?? [];
        list.push({ b: e.b, score: assoc * idf(edf) });
        bySeed.set(e.a, list);
      }
      for (const [, list] of bySeed) {
        list.sort((x, y) => y.score - x.score || x.b - y.b);
        for (const { b, score } of list.slice(0, g.neighborsPerSeed)) {
          const w = g.hopWeight * score;
          if (w > (weight.get(b) ?? 0)) weight.set(b, w);
        }
      }
    }
    // Per entity, its most recent mentions that pass the filters (bounded, so a common entity costs at
    // most maxMentionsPerEntity rows). Entities are read strongest first. The mentions are filtered here
    // against the cache; when the filter drops some of a full page, that entity is read again with the
    // filter in SQL.
    const recent = this.prepare('SELECT doc_id FROM search_mentions WHERE entity_id = ? ORDER BY doc_id DESC LIMIT ?');
    const recentFiltered = this.prepare(
      `SELECT m.doc_id AS doc_id FROM search_mentions m CROSS JOIN search_docs d ON d.doc_id = m.doc_id
       WHERE m.entity_id = ? AND ${f.sql} ORDER BY m.doc_id DESC LIMIT ?`,
    );
    const rows: { entity_id: number; doc_id: number }[] = [];
    for (const [entity] of [...weight.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 24)) {
      const page = recent.all([entity, g.maxMentionsPerEntity]) as { doc_id: number }[];
      let kept = page.filter((r) => c.acceptsDoc(r.doc_id, f.filter));
      if (kept.length < page.length && page.length === g.maxMentionsPerEntity) {
        kept = (recentFiltered.all([entity, ...f.params, g.maxMentionsPerEntity]) as { doc_id: number }[]).filter((r) =>
          c.acceptsDoc(r.doc_id, f.filter),
        );
      }
      for (const r of kept) rows.push({ entity_id: entity, doc_id: r.doc_id });
    }
    const scores = new Map<number, number>();
    for (const r of rows) scores.set(r.doc_id, (scores.get(r.doc_id) ?? 0) + weight.get(r.entity_id)!);
    return [...scores.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, depth)
      .map(([key, score]) => ({ key, score }));
  }
}

/**
 * The fused candidates in final order: those of at least `minQuality` first (a soft threshold), then by
 * score, ties by memory id. Candidates the cache does not hold (written after its sync) are left out.
 * Only the first offset + limit are put in order when they are few (a page of 10 among ~200 candidates:
 * a sorted array of ten that most candidates fail to enter at its first comparison, instead of sorting
 * them all); deep pages sort everything.
 */
function rank(c: TenantCache, fused: Map<number, number>, offset: number, limit: number, minQuality: number | undefined): SearchResult {
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
function spreadToAdjacent(c: TenantCache, fused: Map<number, number>, f: Normalised, adj: ContextConfig, weight: number): void {
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

function num(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`invalid weight ${x}`);
  return x.toFixed(6);
}

/**
 * The search's filter policy (`resolveSearchFilter`) in two forms: SQL over `search_docs d` (the keyword and graph
 * channels' fallback) and a predicate over the tenant cache (every channel's candidates). Null when nothing can match.
 */
function normaliseFilters(tenantId: string, filters: SearchFilters): Normalised | null {
  const policy = resolveSearchFilter(filters);
  if (!policy) return null;
  const parts = ['d.tenant_id = ?'];
  const params: unknown[] = [tenantId];
  if (policy.namespaces) {
    parts.push('d.namespace IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(policy.namespaces));
  }
  if (policy.agentId !== null) {
    parts.push('d.agent_id = ?');
    params.push(policy.agentId);
  }
  // Statuses are a closed set of literals, so they are written into the SQL rather than bound.
  for (const status of policy.excludedStatuses) parts.push(`d.status <> '${status}'`);
  if (policy.excludeFlagged) parts.push('d.injection_flagged = 0');
  return { sql: parts.join(' AND '), params, filter: rowFilter(policy) };
}
