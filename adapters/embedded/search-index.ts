import type { EmbeddedDatabase } from './database.js';
import { preparedStatement, type Statement } from './statement-cache.js';
import { translateFilter, type TranslatedFilter } from './search/filter-translation.js';
import { graphChannel } from './search/graph-channel.js';
import { IvfIndex, type IvfOptions } from './search/ivf.js';
import { keywordChannel } from './search/keyword-channel.js';
import { rank, spreadToAdjacent } from './search/ranking.js';
import {
  deleteIndexRows,
  deleteTenantRows,
  ensureIndexInfo,
  localIndexWrites,
  markReindexComplete,
  readReindexIncomplete,
  writeIndexRows,
} from './search/rows.js';
import { TenantCache } from './search/tenant-cache.js';
import { fuseChannels, type Channel, type ChannelHit } from '../../server/services/search/fusion.js';
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
import { netIndexChanges } from '../../server/services/search/index-changes.js';
import {
  SEARCH_MODES,
  type IndexChange,
  type IndexInfo,
  type IndexedMemory,
  type SearchIndex,
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
   * 200 000: IVF was faster at 100k but recalled too little of the full scan and took minutes to build,
   * so scoring every row is worth it there (figures: docs/performance.md#exact-scan-up-to-200000-vectors).
   */
  annThreshold?: number;
  ivf?: Partial<IvfOptions>;
  /**
   * A tenant with more vectors than this (up to `annThreshold`) is scanned in two steps: a binary first
   * pass estimates the query's dense groups from each row's signs (`Int8Matrix.firstPass`), then the
   * `firstPassCandidates` best rows (at least 4 × the channel's depth) are scored exactly. Default
   * 50,000: below it the full int8 scan is cheap, above it the semantic part of every row is most of the
   * scan's memory traffic (figures: docs/performance.md#binary-first-pass-above-50000-vectors). Recall
   * against the full scan: `bench/search-http.ts` reports it (see README).
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

  /** The batch in one transaction, by the shared rule (a memory's last change wins). */
  async applyChanges(tenantId: string, changes: readonly IndexChange[]): Promise<void> {
    const { upserts, removals } = netIndexChanges(changes);
    this.db.transaction(() => {
      for (const r of removals) deleteIndexRows(this.db, tenantId, r.memoryId);
      for (const d of upserts) writeIndexRows(this.db, tenantId, d);
    })();
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
    const f = translateFilter(tenantId, query.filters);
    if (!f) return { hits: [], total: 0 };
    const depth = Math.max(this.candidateDepth, offset + limit);
    const fusion = tuning.fusion ?? this.fusion;
    // Every step below reads the tenant as of this sync: a document committed afterwards is left out.
    const c = this.cache(tenantId);

    const channels: Channel<number>[] = [];
    if (query.mode === 'vector-only') {
      channels.push({ name: 'dense', weight: 1, hits: this.denseChannel(c, query.vector!, depth, f, tuning.exact, tuning.probes) });
    } else {
      const w = query.mode === 'hybrid' ? { ...fusion.weights.hybrid, graph: 0 } : fusion.weights['hybrid+graph'];
      if (w.keyword > 0)
        channels.push({
          name: 'keyword',
          weight: w.keyword,
          hits: keywordChannel(this.db, c, query.text, depth, f, this.keyword, tuning.fts5),
        });
      if (w.dense > 0 && query.vector) {
        channels.push({ name: 'dense', weight: w.dense, hits: this.denseChannel(c, query.vector, depth, f, tuning.exact, tuning.probes) });
      }
      if (w.graph > 0) {
        channels.push({ name: 'graph', weight: w.graph, hits: graphChannel(this.db, c, query.text, depth, f, tuning.graph ?? this.graph) });
      }
    }
    const fused = fuseChannels(channels, fusion.method);
    const context = tuning.context ?? this.context;
    spreadToAdjacent(c, fused, f, context, context.weight[query.mode]);
    return rank(c, fused, offset, limit, query.filters.minQuality);
  }

  /** One channel alone, best first (benchmarks: `keyword` is plain BM25). */
  channelSearch(tenantId: string, channel: ChannelName, query: SearchQuery, tuning: SearchTuning = {}): Promise<SearchResult> {
    const f = translateFilter(tenantId, query.filters);
    if (!f) return Promise.resolve({ hits: [], total: 0 });
    const c = this.cache(tenantId);
    const depth = Math.max(this.candidateDepth, (query.offset ?? 0) + query.limit);
    const hits =
      channel === 'keyword'
        ? keywordChannel(this.db, c, query.text, depth, f, this.keyword, tuning.fts5)
        : channel === 'dense'
          ? query.vector
            ? this.denseChannel(c, query.vector, depth, f, tuning.exact, tuning.probes)
            : []
          : graphChannel(this.db, c, query.text, depth, f, tuning.graph ?? this.graph);
    return Promise.resolve(rank(c, new Map(hits.map((h) => [h.key, h.score])), query.offset ?? 0, query.limit, query.filters.minQuality));
  }

  private prepare(sql: string): Statement {
    return preparedStatement(this.db, sql);
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

  private denseChannel(
    c: TenantCache,
    q: Float32Array,
    depth: number,
    f: TranslatedFilter,
    exact = false,
    probes?: number,
  ): ChannelHit<number>[] {
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
}
