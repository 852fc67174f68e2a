import type { Schemas } from '@qdrant/js-client-rest';

/**
 * The layout of the one Qdrant collection that holds every tenant's search index.
 *
 * Points (all carry `kind`):
 * - `memory`: one per indexed memory; id = UUIDv5(tenant, memory). Named vectors: `dense` (the
 *   embedding, cosine), `text` (per term id, the column-weighted term frequency; no modifier: BM25 is
 *   computed at query time from the tenant's own statistics, see keyword.ts) and `entities` (1 per
 *   mentioned entity key; the graph channel queries it with its own weights). Payload: tenant_id,
 *   memory_id, namespace, agent_id, status, injection_flagged, quality, created_at, entities (the first
 *   16 distinct entity keys), terms (the term ids of `text`, indexed so the tenant's document frequency
 *   of a term is a count) and doc_length (tokens, for BM25's length normalisation and the tenant's
 *   average). No title or content: Qdrant holds no text.
 * - `entity`: one per (tenant, entity key) with `df`, the number of the tenant's memories mentioning
 *   the key; no vectors. Read by id at query time to find the query's entities and their frequencies.
 * - `tombstone`: what a memory's point becomes when the memory leaves the index (deleted or merged):
 *   tenant_id, memory_id, the committed version it left at, removed_at, and `former_entities` (the keys
 *   its point held, recounted again if the removal is retried). No vectors. It keeps a write that
 *   arrives late (an upsert a drain sent before it lost its lease, or one whose request timed out but
 *   still landed) from inserting the point again; kept for a day (`TOMBSTONE_RETENTION_MS`).
 * - `meta`: one point (no tenant) recording the embedding model and dimension; no vectors.
 */

export const DENSE_VECTOR = 'dense';
export const TEXT_VECTOR = 'text';
export const ENTITY_VECTOR = 'entities';

/** Payload of a memory point. */
export interface MemoryPayload {
  kind: 'memory';
  tenant_id: string;
  memory_id: string;
  namespace: string;
  agent_id: string | null;
  status: string;
  injection_flagged: boolean;
  quality: number;
  created_at: string;
  entities: string[];
  /** Distinct term ids (the `text` vector's indices). */
  terms: number[];
  /** Tokens over title, content and tags (stop-words included, as FTS5 counts them). */
  doc_length: number;
  /** The memory's committed version: an upsert never replaces a point of a higher one (`staleWriteFence`). Absent on points written before it was stored. */
  committed_version?: number;
  /**
   * Entity keys an earlier version of the point held and this one does not, until the write's recount
   * of them went through: a retry of the write finds them here, since the point already shows the new keys.
   */
  stale_entities?: string[];
}

/** Payload of a removed memory's point (see the layout above). */
export interface TombstonePayload {
  kind: 'tombstone';
  tenant_id: string;
  memory_id: string;
  /** Absent when the removal did not say (a direct `remove`): then the marker fences nothing. */
  committed_version?: number;
  removed_at: string;
  former_entities: string[];
}

/** How long a tombstone outlives its removal: far beyond a drain's lease and a write request's timeout. */
export const TOMBSTONE_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Payload of an entity statistics point. */
export interface EntityPayload {
  kind: 'entity';
  tenant_id: string;
  entity_key: string;
  df: number;
}

/** Payload of the metadata point. */
export interface MetaPayload {
  kind: 'meta';
  embedding_model: string;
  embedding_dimension: number;
  layout_version: number;
  /** Set by `tenant-memory reindex` when it recreates the collection, cleared when it finished. */
  reindex_incomplete?: boolean;
}

/**
 * Bumped when the point layout changes incompatibly; a start-up check refuses another layout and names
 * `tenant-memory reindex`. 2: `text` holds term frequencies without Qdrant's collection-wide IDF
 * modifier, memory points carry `terms` and `doc_length` (layout 1 had BM25 weights with a fixed
 * average length and the `idf` modifier, which let other tenants' documents move a tenant's scores).
 * Memory points written before `committed_version` was stored need no reindex: a point without it is
 * replaced by any write (the fence starts with the next write of the memory).
 */
export const LAYOUT_VERSION = 2;

/** The collection as created: named dense vector plus two named sparse vectors. */
export function collectionSpec(dimension: number): Schemas['CreateCollection'] {
  if (!Number.isInteger(dimension) || dimension <= 0) throw new RangeError(`invalid embedding dimension ${dimension}`);
  return {
    vectors: { [DENSE_VECTOR]: { size: dimension, distance: 'Cosine' } },
    sparse_vectors: {
      [TEXT_VECTOR]: { modifier: 'none' },
      [ENTITY_VECTOR]: { modifier: 'none' },
    },
  };
}

/**
 * Payload indexes. `tenant_id` is the tenant key (`is_tenant`: Qdrant co-locates each tenant's points
 * and plans every query inside one tenant). The others serve the request filters, the entity look-ups
 * and deletion by memory; `terms` the per-tenant document frequencies (counts), `doc_length` the
 * tenant's average length (a facet) and the BM25 formula, `created_at` the episodic-context look-ups
 * (ordered by time), `removed_at` the purge of old tombstones, `committed_version` the write fence
 * and the clear of `stale_entities` (Qdrant's strict mode refuses updates filtered on unindexed fields). `quality` is not indexed: `minQuality` is a soft ordering applied after fusion,
 * never a filter.
 */
export const PAYLOAD_INDEXES: readonly { field: string; schema: Schemas['PayloadFieldSchema'] }[] = [
  { field: 'tenant_id', schema: { type: 'keyword', is_tenant: true } },
  { field: 'kind', schema: 'keyword' },
  { field: 'memory_id', schema: 'keyword' },
  { field: 'namespace', schema: 'keyword' },
  { field: 'agent_id', schema: 'keyword' },
  { field: 'status', schema: 'keyword' },
  { field: 'injection_flagged', schema: 'bool' },
  { field: 'entities', schema: 'keyword' },
  { field: 'terms', schema: { type: 'integer', lookup: true, range: false } },
  { field: 'doc_length', schema: { type: 'integer', lookup: true, range: false } },
  { field: 'created_at', schema: 'datetime' },
  { field: 'removed_at', schema: 'datetime' },
  { field: 'committed_version', schema: { type: 'integer', lookup: true, range: true } },
];

/**
 * Whether an existing collection was written by an older layout (its `text` vector still has Qdrant's
 * `idf` modifier, or its metadata point records an older layout): such a collection needs
 * `tenant-memory reindex` (MongoDB holds every memory; the reindex rebuilds the collection).
 */
export function outdatedLayout(textModifier: string | null | undefined, recordedLayout: number | null): boolean {
  return (textModifier ?? 'none') !== 'none' || (recordedLayout !== null && recordedLayout < LAYOUT_VERSION);
}

/**
 * The oldest Qdrant this layout and its requests work on: formula queries (the keyword channel) came
 * in 1.14, conditional upserts (`update_filter`, the fence against stale writes) in 1.16.
 */
export const MIN_QDRANT_VERSION = '1.16';

/** Whether a server version string ("1.17.0", "v1.14.1") is at least `MIN_QDRANT_VERSION`; an unparsable one is not. */
export function supportsQdrantVersion(version: string | undefined): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const [major, minor] = MIN_QDRANT_VERSION.split('.').map(Number) as [number, number];
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor);
}
