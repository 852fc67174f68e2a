import type { QdrantClient } from '@qdrant/js-client-rest';
import { resolveSearchFilter } from '../../server/services/search/filter-policy.js';
import {
  DEFAULT_CONTEXT,
  DEFAULT_FUSION,
  DEFAULT_GRAPH,
  DEFAULT_KEYWORD,
  type ContextConfig,
  type FusionConfig,
} from '../../server/services/search/tuning.js';
import type { Embedder } from '../../server/ports/embedder.js';
import {
  EmbeddingModelMismatchError,
  SEARCH_MODES,
  SearchIndexLayoutError,
  type IndexChange,
  type IndexInfo,
  type IndexedMemory,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
} from '../../server/ports/search-index.js';
import { clientOf, dropCollection } from './client.js';
import { collectionMissing, guarded } from './errors.js';
import { tenantFilter } from './filters.js';
import type { GraphParams } from './graph.js';
import { QdrantIndexWriter } from './index-writer.js';
import { META_POINT_ID } from './ids.js';
import {
  DENSE_VECTOR,
  ENTITY_VECTOR,
  LAYOUT_VERSION,
  MIN_QDRANT_VERSION,
  PAYLOAD_INDEXES,
  TEXT_VECTOR,
  collectionSpec,
  outdatedLayout,
  supportsQdrantVersion,
  type MetaPayload,
} from './schema.js';
import { searchQdrant, type QdrantSearchSettings } from './search.js';
import type { ColumnWeights } from './sparse.js';

/**
 * The search index of the server profile on Qdrant: one collection for every tenant, the tenant as a
 * keyword payload index with `is_tenant: true` and a tenant filter on every request (built by
 * `tenantFilter`, the only filter builder here). Per memory: a dense vector, a term-frequency sparse
 * vector and an entity sparse vector. A search (search.ts) reads the tenant's own statistics, fetches
 * the channels in one batched Query API request and ranks them with the embedded index's functions
 * (fusion, episodic context, final order in server/services/search). See `schema.ts` for the point
 * layout and docs/search-qdrant.md for what still differs from the embedded index.
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
  /** Retrieval tuning, the embedded index's by default (server/services/search/tuning.ts). */
  fusion?: FusionConfig;
  graph?: GraphParams;
  context?: ContextConfig;
  keyword?: ColumnWeights;
  /** Candidates each channel contributes before fusion (at least offset + limit; default 100). */
  candidateDepth?: number;
  /** Most memories one keyword term's prefetch reads (default 10,000; see keyword.ts). */
  keywordTermLimit?: number;
  logger?: { warn(obj: object, msg: string): void };
}

export class QdrantSearchIndex implements SearchIndex {
  /** Mirrors the metadata point's `reindex_incomplete` (read at open; only `completeReindex` clears it). */
  private incomplete = false;
  /** Upserts, removals and the entity recounts they need (`index-writer.ts`). */
  private readonly writer: QdrantIndexWriter;

  private constructor(
    private readonly client: QdrantClient,
    private readonly collection: string,
    private readonly info: IndexInfo,
    private readonly settings: Omit<QdrantSearchSettings, 'depth'>,
    keyword: ColumnWeights,
    private readonly candidateDepth: number,
  ) {
    this.writer = new QdrantIndexWriter(client, collection, { info, keyword });
  }

  /**
   * Connects, creates the collection and its payload indexes when missing (idempotent, safe when
   * several instances start at once), and records or checks the embedding model and dimension.
   * Throws `EmbeddingModelMismatchError` when the collection was built with another model,
   * `SearchIndexLayoutError` when an older version wrote it (both name `tenant-memory reindex`), and
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
    // The keyword channel is a formula query (Qdrant 1.14): refuse an older server at start-up rather than fail every search.
    if (!supportsQdrantVersion(version.version)) {
      throw new Error(
        `Qdrant ${version.version} is too old for this service: the search index needs Qdrant ${MIN_QDRANT_VERSION} or newer`,
      );
    }
    await ensureCollection(client, collection, configured);
    const { reindexIncomplete, layoutVersion: _layout, ...info } = await ensureIndexInfo(client, collection, configured, reindexing);
    const index = new QdrantSearchIndex(
      client,
      collection,
      info,
      {
        fusion: options.fusion ?? DEFAULT_FUSION,
        graph: options.graph ?? DEFAULT_GRAPH,
        context: options.context ?? DEFAULT_CONTEXT,
        keywordTermLimit: options.keywordTermLimit ?? 10_000,
      },
      options.keyword ?? DEFAULT_KEYWORD,
      options.candidateDepth ?? 100,
    );
    index.incomplete = reindexIncomplete;
    // Only `tenant-memory reindex` writes to an incomplete index (services refuse to start on one).
    index.writer.deferRecounts(reindexIncomplete);
    return index;
  }

  indexInfo(): IndexInfo {
    return { ...this.info };
  }

  reindexIncomplete(): boolean {
    return this.incomplete;
  }

  async completeReindex(): Promise<void> {
    await this.writer.flushDeferred();
    this.writer.deferRecounts(false);
    await guarded('write', () =>
      this.client.setPayload(this.collection, { points: [META_POINT_ID], payload: { reindex_incomplete: false }, wait: true }),
    );
    this.incomplete = false;
  }

  async upsert(tenantId: string, doc: IndexedMemory): Promise<void> {
    await this.writer.apply(tenantId, [{ op: 'upsert', doc }]);
  }

  /** Many memories of one tenant in one write (bulk loads); the last of duplicate ids wins. */
  async upsertMany(tenantId: string, docs: readonly IndexedMemory[]): Promise<void> {
    await this.writer.apply(
      tenantId,
      docs.map((doc) => ({ op: 'upsert', doc })),
    );
  }

  async remove(tenantId: string, memoryId: string): Promise<void> {
    await this.writer.apply(tenantId, [{ op: 'remove', memoryId }]);
  }

  async applyChanges(tenantId: string, changes: readonly IndexChange[]): Promise<void> {
    await this.writer.apply(tenantId, changes);
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
    return searchQdrant({ client: this.client, collection: this.collection }, { ...this.settings, depth }, tenantId, query, policy);
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
  // Before anything is added to it: a collection of the previous layout is left as it is for the reindex.
  const modifier = sparse[TEXT_VECTOR].modifier;
  if (outdatedLayout(typeof modifier === 'string' ? modifier : null, null)) {
    throw new SearchIndexLayoutError(`Qdrant collection "${name}" applies a collection-wide IDF to keyword scores`);
  }
  const layout = created ? null : ((await readMeta(client, name))?.layoutVersion ?? null);
  if (layout !== null && outdatedLayout(null, layout)) {
    throw new SearchIndexLayoutError(`Qdrant collection "${name}" records layout ${layout}; this version reads ${LAYOUT_VERSION}`);
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
  /** The recorded layout (1 when the point predates the field). */
  layoutVersion: number;
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
  return {
    model: p.embedding_model,
    dimension: p.embedding_dimension,
    reindexIncomplete: p.reindex_incomplete === true,
    layoutVersion: typeof p.layout_version === 'number' ? p.layout_version : 1,
  };
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
  return { ...configured, reindexIncomplete: reindexing, layoutVersion: LAYOUT_VERSION };
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
