import type { Schemas } from '@qdrant/js-client-rest';

/**
 * The layout of the one Qdrant collection that holds every tenant's search index.
 *
 * Points (all carry `kind`):
 * - `memory`: one per indexed memory; id = UUIDv5(tenant, memory). Named vectors: `dense` (the
 *   embedding, cosine), `text` (client-side BM25 term weights, IDF applied by Qdrant's `idf` modifier)
 *   and `entities` (1 per mentioned entity key; the graph channel queries it with its own weights).
 *   Payload: tenant_id, memory_id, namespace, agent_id, status, injection_flagged, quality,
 *   created_at, entities (the first 16 distinct entity keys). No title or content: Qdrant holds no text.
 * - `entity`: one per (tenant, entity key) with `df`, the number of the tenant's memories mentioning
 *   the key; no vectors. Read by id at query time to find the query's entities and their frequencies.
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
}

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

/** Bumped when the point layout changes incompatibly (a start-up check refuses an older layout). */
export const LAYOUT_VERSION = 1;

/** The collection as created: named dense vector plus two named sparse vectors. */
export function collectionSpec(dimension: number): Schemas['CreateCollection'] {
  if (!Number.isInteger(dimension) || dimension <= 0) throw new RangeError(`invalid embedding dimension ${dimension}`);
  return {
    vectors: { [DENSE_VECTOR]: { size: dimension, distance: 'Cosine' } },
    sparse_vectors: {
      [TEXT_VECTOR]: { modifier: 'idf' },
      [ENTITY_VECTOR]: { modifier: 'none' },
    },
  };
}

/**
 * Payload indexes. `tenant_id` is the tenant key (`is_tenant`: Qdrant co-locates each tenant's points
 * and plans every query inside one tenant). The others serve the request filters, the entity look-ups
 * and deletion by memory. `quality` is not indexed: `minQuality` is a soft ordering applied after
 * fusion, never a filter.
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
];
