import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import { resolveSearchFilter } from '../../server/services/search/filter-policy.js';
import { DEFAULT_FUSION, DEFAULT_GRAPH, DEFAULT_KEYWORD } from '../../server/services/search/tuning.js';
import type { Embedder } from '../../server/ports/embedder.js';
import {
  EmbeddingModelMismatchError,
  SEARCH_MODES,
  type IndexInfo,
  type IndexedMemory,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
} from '../../server/ports/search-index.js';
import { clientOf, dropCollection } from './client.js';
import { collectionMissing, guarded } from './errors.js';
import { tenantFilter } from './filters.js';
import { graphQueryKeys, graphWeights, type GraphParams } from './graph.js';
import { META_POINT_ID, entityPointId, memoryPointId } from './ids.js';
import {
  buildSearchRequest,
  fusionCapabilities,
  memoryPoint,
  rankPoints,
  type ChannelWeights,
  type FusionCapabilities,
  type FusionSetting,
} from './requests.js';
import {
  DENSE_VECTOR,
  ENTITY_VECTOR,
  LAYOUT_VERSION,
  PAYLOAD_INDEXES,
  TEXT_VECTOR,
  collectionSpec,
  type EntityPayload,
  type MemoryPayload,
  type MetaPayload,
} from './schema.js';
import { DEFAULT_BM25, weightedEntityVector, querySparseVector, type Bm25Params, type ColumnWeights, type SparseVector } from './sparse.js';

/**
 * The search index of the server profile on Qdrant: one collection for every tenant, the tenant as a
 * keyword payload index with `is_tenant: true` and a tenant filter on every request (built by
 * `tenantFilter`, the only filter builder here). Per memory: a dense vector, a BM25 sparse vector
 * (Qdrant applies IDF) and an entity sparse vector; hybrid search is one Query API request whose
 * prefetches are the channels and whose query fuses them. See `schema.ts` for the point layout and
 * `docs` in each helper for how each channel mirrors the embedded index.
 *
 * Differences from the embedded index, by construction:
 * - BM25 document length normalisation uses a fixed average length (see sparse.ts); IDF is Qdrant's
 *   (ln(1 + (N − n + 0.5)/(n + 0.5)), collection-wide), not FTS5's.
 * - Dense search is Qdrant's HNSW (approximate, filtered in-graph) rather than an exact scan.
 * - Graph: entity frequencies come from per-(tenant, entity) statistics points recounted on every
 *   write that changes a memory's entities (concurrent writers can leave a count briefly stale until
 *   the next write touching that entity); co-occurrences come from a facet over the memories that
 *   mention the query entity, limited to its `neighborCandidates` most frequent companions (the
 *   embedded index ranks all companions). Weights are then computed exactly as the embedded index does.
 * - Fusion: RRF with the embedded k and weights on Qdrant ≥ 1.17 (identical scores); on older servers
 *   see `fusionQuery`. Score fusion (`weighted`) falls back to RRF.
 */

export interface QdrantSearchIndexOptions {
  /** Qdrant REST address (`QDRANT_URL`); ignored when `client` is given. */
  url?: string;
  /** `QDRANT_API_KEY`. */
  apiKey?: string;
  /** A client to use instead of constructing one. */
  client?: QdrantClient;
  /** Collection name (`QDRANT_COLLECTION`). */
  collection: string;
  /** The configured embedder: its model and dimension are recorded in, and checked against, the collection. */
  embedder: Pick<Embedder, 'model' | 'dimension' | 'init'>;
  /** Per-request timeout (default 10 s); ignored when `client` is given. */
  timeoutMs?: number;
  /** Budget of the collection drop in a reset (default 5 minutes), apart from `timeoutMs` (a given `client` keeps its own). */
  dropTimeoutMs?: number;
  fusion?: { method: FusionSetting; weights: ChannelWeights };
  graph?: GraphParams;
  keyword?: ColumnWeights;
  bm25?: Bm25Params;
  /** Candidates each channel contributes before fusion (at least offset + limit; default 100). */
  candidateDepth?: number;
  /** Companions of a query entity considered for the 1-hop expansion (default 100). */
  neighborCandidates?: number;
  logger?: { warn(obj: object, msg: string): void };
}

const RETRIEVE_CHUNK = 256;
const PARALLEL_REQUESTS = 8;

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class QdrantSearchIndex implements SearchIndex {
  /** Mirrors the metadata point's `reindex_incomplete` (read at open; only `completeReindex` clears it). */
  private incomplete = false;

  private constructor(
    private readonly client: QdrantClient,
    private readonly collection: string,
    private readonly info: IndexInfo,
    private readonly capabilities: FusionCapabilities,
    private readonly fusion: { method: FusionSetting; weights: ChannelWeights },
    private readonly graph: GraphParams,
    private readonly keyword: ColumnWeights,
    private readonly bm25: Bm25Params,
    private readonly candidateDepth: number,
    private readonly neighborCandidates: number,
  ) {}

  /**
   * Connects, creates the collection and its payload indexes when missing (idempotent, safe when
   * several instances start at once), and records or checks the embedding model and dimension.
   * Throws `EmbeddingModelMismatchError` when the collection was built with another model, and
   * `AppError('DEPENDENCY_UNAVAILABLE')` when Qdrant cannot be reached.
   */
  static async open(options: QdrantSearchIndexOptions, reindexing = false): Promise<QdrantSearchIndex> {
    await options.embedder.init();
    const configured: IndexInfo = { model: options.embedder.model, dimension: options.embedder.dimension };
    if (!configured.model || !Number.isInteger(configured.dimension) || configured.dimension <= 0) {
      throw new Error(`invalid embedding configuration: model "${configured.model}", dimension ${configured.dimension}`);
    }
    if (!options.client && !options.url) throw new Error('the Qdrant search index needs QDRANT_URL (or a client)');
    const client = clientOf(options);
    const collection = options.collection;
    const version = await guarded('connect', () => client.versionInfo());
    const capabilities = fusionCapabilities(version.version);
    if (!capabilities.rrfWeights) {
      options.logger?.warn(
        { qdrantVersion: version.version },
        'Qdrant older than 1.17: hybrid fusion cannot weigh channels' +
          (capabilities.rrfK ? '' : ' or set the RRF constant') +
          '; rankings differ from the embedded profile until Qdrant is upgraded',
      );
    }
    await ensureCollection(client, collection, configured);
    const { reindexIncomplete, ...info } = await ensureIndexInfo(client, collection, configured, reindexing);
    const index = new QdrantSearchIndex(
      client,
      collection,
      info,
      capabilities,
      options.fusion ?? DEFAULT_FUSION,
      options.graph ?? DEFAULT_GRAPH,
      options.keyword ?? DEFAULT_KEYWORD,
      options.bm25 ?? DEFAULT_BM25,
      options.candidateDepth ?? 100,
      options.neighborCandidates ?? 100,
    );
    index.incomplete = reindexIncomplete;
    return index;
  }

  indexInfo(): IndexInfo {
    return { ...this.info };
  }

  reindexIncomplete(): boolean {
    return this.incomplete;
  }

  async completeReindex(): Promise<void> {
    await guarded('write', () =>
      this.client.setPayload(this.collection, { points: [META_POINT_ID], payload: { reindex_incomplete: false }, wait: true }),
    );
    this.incomplete = false;
  }

  async upsert(tenantId: string, doc: IndexedMemory): Promise<void> {
    await this.upsertMany(tenantId, [doc]);
  }

  /** Many memories of one tenant in one write (bulk loads, reindex); the last of duplicate ids wins. */
  async upsertMany(tenantId: string, docs: readonly IndexedMemory[]): Promise<void> {
    const byId = new Map<string, IndexedMemory>();
    for (const d of docs) {
      if (d.vector && d.vector.length !== this.info.dimension) {
        throw new Error(
          `vector of memory ${d.memoryId} has ${d.vector.length} dimensions; the search index holds ` +
            `${this.info.dimension}-dimensional vectors of model "${this.info.model}"`,
        );
      }
      byId.set(d.memoryId, d);
    }
    if (byId.size === 0) return;
    const points = [...byId.values()].map((d) => memoryPoint(tenantId, d, this.keyword, this.bm25));
    const before = await this.storedEntityKeys(
      tenantId,
      points.map((p) => String(p.id)),
    );
    await guarded('upsert', () => this.client.upsert(this.collection, { wait: true, points }));
    const touched = new Set<string>();
    for (const p of points) {
      const now = new Set(p.payload.entities);
      const old = before.get(String(p.id));
      if (!old) {
        for (const k of now) touched.add(k);
        continue;
      }
      for (const k of now) if (!old.has(k)) touched.add(k);
      for (const k of old) if (!now.has(k)) touched.add(k);
    }
    await this.recountEntities(tenantId, [...touched]);
  }

  async remove(tenantId: string, memoryId: string): Promise<void> {
    const id = memoryPointId(tenantId, memoryId);
    const before = await this.storedEntityKeys(tenantId, [id]);
    await guarded('remove', () => this.client.delete(this.collection, { wait: true, filter: tenantFilter(tenantId, { memoryId }) }));
    await this.recountEntities(tenantId, [...(before.get(id) ?? [])]);
  }

  async removeTenant(tenantId: string): Promise<void> {
    await guarded('removeTenant', () =>
      this.client.delete(this.collection, { wait: true, filter: tenantFilter(tenantId, { kind: 'all' }) }),
    );
  }

  /** Cheap round trip for readiness checks; throws `AppError('DEPENDENCY_UNAVAILABLE')` when Qdrant is down. */
  async ping(): Promise<void> {
    const res = await guarded('ping', () => this.client.collectionExists(this.collection));
    if (!res.exists) throw collectionMissing('ping');
  }

  async close(): Promise<void> {
    // The REST client holds only pooled keep-alive sockets, released when idle.
  }

  async search(tenantId: string, query: SearchQuery): Promise<SearchResult> {
    const limit = query.limit;
    const offset = query.offset ?? 0;
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
    if (!Number.isInteger(offset) || offset < 0) throw new RangeError(`offset must be a non-negative integer, got ${offset}`);
    if (!SEARCH_MODES.includes(query.mode)) throw new RangeError(`unknown search mode ${String(query.mode)}`);
    if (query.vector && query.vector.length !== this.info.dimension) {
      throw new RangeError(`query vector has ${query.vector.length} dimensions, the index holds ${this.info.dimension}`);
    }
    if (query.mode === 'vector-only' && !query.vector) throw new RangeError('vector-only search needs a query vector');
    const policy = resolveSearchFilter(query.filters);
    if (!policy) return { hits: [], total: 0 };
    const depth = Math.max(this.candidateDepth, offset + limit);
    const graphOn = query.mode === 'hybrid+graph' && this.fusion.weights['hybrid+graph'].graph > 0;
    const request = buildSearchRequest({
      tenantId,
      query,
      policy,
      depth,
      fusion: this.fusion.method,
      weights: this.fusion.weights,
      capabilities: this.capabilities,
      textVector: query.mode === 'vector-only' ? null : querySparseVector(query.text),
      graphVector: graphOn ? await this.graphVector(tenantId, query.text) : null,
    });
    if (!request) return { hits: [], total: 0 };
    const res = await guarded('search', () => this.client.query(this.collection, request));
    return rankPoints(res.points, tenantId, offset, limit, query.filters.minQuality);
  }

  // ---- entity graph ------------------------------------------------------------------------------

  /** The weighted entity query of the graph channel, or null when the query names no known entity. */
  private async graphVector(tenantId: string, text: string): Promise<SparseVector | null> {
    const keys = graphQueryKeys(text);
    if (keys.length === 0) return null;
    const [tenantDocs, known] = await Promise.all([this.countMemories(tenantId), this.entityFrequencies(tenantId, keys)]);
    const seeds = [...known].map(([key, df]) => ({ key, df })).filter((s) => s.df <= this.graph.maxDocFrequency);
    if (seeds.length === 0) return null;
    const neighbors = new Map<string, { key: string; cooccurrences: number; df: number }[]>();
    if (this.graph.hopWeight > 0 && this.graph.neighborsPerSeed > 0) {
      const facets = await mapLimit(seeds, PARALLEL_REQUESTS, (s) =>
        guarded('graph', () =>
          this.client.facet(this.collection, {
            key: 'entities',
            filter: tenantFilter(tenantId, { entity: s.key }),
            limit: this.neighborCandidates + 1,
            exact: true,
          }),
        ),
      );
      const companions = new Set<string>();
      for (const f of facets) for (const h of f.hits) if (typeof h.value === 'string' && !known.has(h.value)) companions.add(h.value);
      const df = new Map([...known, ...(await this.entityFrequencies(tenantId, [...companions]))]);
      seeds.forEach((s, i) => {
        neighbors.set(
          s.key,
          facets[i]!.hits.filter((h): h is { value: string; count: number } => typeof h.value === 'string' && h.value !== s.key).map(
            (h) => ({ key: h.value, cooccurrences: h.count, df: df.get(h.value) ?? 0 }),
          ),
        );
      });
    }
    return weightedEntityVector(graphWeights({ tenantDocs, seeds, neighbors }, this.graph));
  }

  private async countMemories(tenantId: string): Promise<number> {
    const res = await guarded('count', () => this.client.count(this.collection, { filter: tenantFilter(tenantId), exact: true }));
    return res.count;
  }

  /** Document frequency of each key known in the tenant (absent keys are left out). */
  private async entityFrequencies(tenantId: string, keys: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const ids = [...new Set(keys)].filter((k) => k.length > 0).map((k) => entityPointId(tenantId, k));
    const batches = await mapLimit(chunks(ids, RETRIEVE_CHUNK), PARALLEL_REQUESTS, (batch) =>
      guarded('graph', () => this.client.retrieve(this.collection, { ids: batch, with_payload: true, with_vector: false })),
    );
    for (const records of batches) {
      for (const r of records) {
        const p = r.payload as Partial<EntityPayload> | null | undefined;
        if (p?.kind === 'entity' && p.tenant_id === tenantId && typeof p.entity_key === 'string' && typeof p.df === 'number' && p.df > 0) {
          out.set(p.entity_key, p.df);
        }
      }
    }
    return out;
  }

  /** The entity keys currently stored on the given memory points of the tenant, by point id. */
  private async storedEntityKeys(tenantId: string, ids: readonly string[]): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    const batches = await mapLimit(chunks(ids, RETRIEVE_CHUNK), PARALLEL_REQUESTS, (batch) =>
      guarded('upsert', () =>
        this.client.retrieve(this.collection, { ids: batch, with_payload: ['kind', 'tenant_id', 'entities'], with_vector: false }),
      ),
    );
    for (const records of batches) {
      for (const r of records) {
        const p = r.payload as Partial<MemoryPayload> | null | undefined;
        if (p?.kind !== 'memory' || p.tenant_id !== tenantId) continue;
        out.set(String(r.id), new Set(Array.isArray(p.entities) ? p.entities.filter((k): k is string => typeof k === 'string') : []));
      }
    }
    return out;
  }

  /**
   * Recounts how many of the tenant's memories mention each key and stores it on the entity's
   * statistics point (deleted at 0). Counting from the memory points, instead of incrementing, makes
   * the statistics converge to the truth on every write that touches the entity.
   */
  private async recountEntities(tenantId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const counts = await mapLimit(keys, PARALLEL_REQUESTS, async (key) => {
      const res = await guarded('upsert', () =>
        this.client.count(this.collection, { filter: tenantFilter(tenantId, { entity: key }), exact: true }),
      );
      return { key, df: res.count };
    });
    const live = counts.filter((c) => c.df > 0);
    const gone = counts.filter((c) => c.df === 0).map((c) => entityPointId(tenantId, c.key));
    if (live.length > 0) {
      const points: Schemas['PointStruct'][] = live.map((c) => ({
        id: entityPointId(tenantId, c.key),
        vector: {},
        payload: { kind: 'entity', tenant_id: tenantId, entity_key: c.key, df: c.df } satisfies EntityPayload,
      }));
      await guarded('upsert', () => this.client.upsert(this.collection, { wait: true, points }));
    }
    if (gone.length > 0) {
      await guarded('upsert', () => this.client.delete(this.collection, { wait: true, points: gone }));
    }
  }
}

/** Creates the collection when missing and its payload indexes; refuses a collection of another shape. */
async function ensureCollection(client: QdrantClient, name: string, configured: IndexInfo): Promise<void> {
  const exists = await guarded('connect', () => client.collectionExists(name));
  const created = !exists.exists;
  if (created) {
    try {
      await guarded('connect', () => client.createCollection(name, collectionSpec(configured.dimension)));
    } catch (err) {
      // Another instance may have created it in between; anything else is a real failure.
      const again = await guarded('connect', () => client.collectionExists(name));
      if (!again.exists) throw err;
    }
  }
  const info = await guarded('connect', () => client.getCollection(name));
  const vectors = info.config.params.vectors;
  const dense = vectors && !('size' in vectors) ? vectors[DENSE_VECTOR] : undefined;
  const sparse = info.config.params.sparse_vectors ?? {};
  if (!dense || dense.distance !== 'Cosine' || !sparse[TEXT_VECTOR] || !sparse[ENTITY_VECTOR]) {
    throw new Error(
      `Qdrant collection "${name}" exists but does not have this service's layout (named cosine vector "${DENSE_VECTOR}", ` +
        `sparse vectors "${TEXT_VECTOR}" and "${ENTITY_VECTOR}"); set QDRANT_COLLECTION to another name or remove it`,
    );
  }
  if (dense.size !== configured.dimension) {
    const recorded = await readMeta(client, name);
    throw new EmbeddingModelMismatchError(recorded ?? { model: 'unknown', dimension: dense.size }, configured);
  }
  // On a new collection the indexes exist before the first point; on an existing one (an upgrade that
  // adds an index) Qdrant builds it in the background instead of holding start-up for a large collection.
  const schema = info.payload_schema ?? {};
  for (const idx of PAYLOAD_INDEXES) {
    if (schema[idx.field]) continue;
    await guarded('connect', () => client.createPayloadIndex(name, { field_name: idx.field, field_schema: idx.schema, wait: created }));
  }
}

interface RecordedMeta extends IndexInfo {
  reindexIncomplete: boolean;
}

async function readMeta(client: QdrantClient, name: string): Promise<RecordedMeta | null> {
  const [record] = await guarded('connect', () => client.retrieve(name, { ids: [META_POINT_ID], with_payload: true, with_vector: false }));
  const p = record?.payload as Partial<MetaPayload> | null | undefined;
  if (p?.kind !== 'meta' || typeof p.embedding_model !== 'string' || typeof p.embedding_dimension !== 'number') return null;
  if (typeof p.layout_version === 'number' && p.layout_version > LAYOUT_VERSION) {
    throw new Error(
      `Qdrant collection "${name}" was written by a newer version of this service (layout ${p.layout_version}, this one reads ${LAYOUT_VERSION})`,
    );
  }
  return { model: p.embedding_model, dimension: p.embedding_dimension, reindexIncomplete: p.reindex_incomplete === true };
}

/**
 * Records the model and dimension on first use (with the reindex marker when `reindexing`: a new
 * collection made by `tenant-memory reindex`); afterwards refuses another one.
 */
async function ensureIndexInfo(client: QdrantClient, name: string, configured: IndexInfo, reindexing: boolean): Promise<RecordedMeta> {
  const recorded = await readMeta(client, name);
  if (recorded) {
    if (recorded.model !== configured.model || recorded.dimension !== configured.dimension) {
      throw new EmbeddingModelMismatchError(recorded, configured);
    }
    return recorded;
  }
  const payload: MetaPayload = {
    kind: 'meta',
    embedding_model: configured.model,
    embedding_dimension: configured.dimension,
    layout_version: LAYOUT_VERSION,
    reindex_incomplete: reindexing,
  };
  await guarded('connect', () => client.upsert(name, { wait: true, points: [{ id: META_POINT_ID, vector: {}, payload: { ...payload } }] }));
  return { ...configured, reindexIncomplete: reindexing };
}

/** The factory the server profile calls (`QDRANT_URL`, `QDRANT_API_KEY`, `QDRANT_COLLECTION`). */
export function createQdrantSearchIndex(options: QdrantSearchIndexOptions): Promise<QdrantSearchIndex> {
  return QdrantSearchIndex.open(options);
}

/**
 * For `tenant-memory reindex` on the server profile: drops the collection (every tenant's index rows;
 * MongoDB stays the source of truth) and opens a new one recording the configured model and
 * dimension, marked incomplete. The caller then upserts every current memory again and calls
 * `completeReindex`.
 *
 * The old collection is marked incomplete before it is dropped, so a run stopped before the drop
 * leaves a collection the service refuses. A run stopped between the drop and the new metadata point
 * (creating the collection and its payload indexes, about a second) leaves no mark: the service would
 * then start on an empty collection. Closing that gap needs the mark outside the collection (in
 * MongoDB, or a collection alias swapped at the end).
 */
export async function resetQdrantSearchIndex(options: QdrantSearchIndexOptions): Promise<QdrantSearchIndex> {
  if (!options.client && !options.url) throw new Error('the Qdrant search index needs QDRANT_URL (or a client)');
  const client = clientOf(options);
  const exists = await guarded('reset', () => client.collectionExists(options.collection));
  if (exists.exists) {
    if (await readMeta(client, options.collection).catch(() => null)) {
      await guarded('reset', () =>
        client.setPayload(options.collection, { points: [META_POINT_ID], payload: { reindex_incomplete: true }, wait: true }),
      );
    }
    await dropCollection(options, options.collection);
  }
  return QdrantSearchIndex.open({ ...options, client }, true);
}
