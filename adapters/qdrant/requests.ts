import type { Schemas } from '@qdrant/js-client-rest';
import type { IndexedMemory, SearchQuery, SearchResult } from '../../server/ports/search-index.js';
import type { SearchFilterPolicy } from '../../server/services/search/filter-policy.js';
import type { FusionMethod } from '../../server/services/search/tuning.js';
import { tenantFilter } from './filters.js';
import { documentEntityKeys } from './graph.js';
import { memoryPointId } from './ids.js';
import { DENSE_VECTOR, ENTITY_VECTOR, TEXT_VECTOR, type MemoryPayload } from './schema.js';
import { documentSparseVector, entitySparseVector, type Bm25Params, type ColumnWeights, type SparseVector } from './sparse.js';

/**
 * Pure builders of what the Qdrant adapter sends, and of how it reads the answer. Kept apart from the
 * I/O so unit tests can assert the exact request bodies without a Qdrant server.
 */

type QueryRequest = Schemas['QueryRequest'];
type Prefetch = Schemas['Prefetch'];
type Query = Schemas['Query'];

// ---- writes ------------------------------------------------------------------------------------------

/** The point of one memory: deterministic id, tenant-tagged payload, the vectors it has. */
export function memoryPoint(
  tenantId: string,
  doc: IndexedMemory,
  weights: ColumnWeights,
  bm25: Bm25Params,
): Schemas['PointStruct'] & { payload: MemoryPayload } {
  const vector: Record<string, number[] | SparseVector> = {};
  if (doc.vector) vector[DENSE_VECTOR] = Array.from(doc.vector);
  const text = documentSparseVector(doc, weights, bm25);
  if (text) vector[TEXT_VECTOR] = text;
  const keys = documentEntityKeys(doc.entities);
  const entities = entitySparseVector(keys);
  if (entities) vector[ENTITY_VECTOR] = entities;
  return {
    id: memoryPointId(tenantId, doc.memoryId),
    vector,
    payload: {
      kind: 'memory',
      tenant_id: tenantId,
      memory_id: doc.memoryId,
      namespace: doc.namespace,
      agent_id: doc.agentId,
      status: doc.status,
      injection_flagged: doc.injectionFlagged === true,
      quality: Number.isFinite(doc.quality) ? Math.min(1, Math.max(0, doc.quality)) : 0,
      created_at: doc.createdAt,
      entities: keys,
    },
  };
}

// ---- fusion ------------------------------------------------------------------------------------------

/** What the connected Qdrant understands of the Query API's fusion. */
export interface FusionCapabilities {
  /** `{rrf: {k}}` (Qdrant ≥ 1.16). */
  rrfK: boolean;
  /** `{rrf: {weights}}` (Qdrant ≥ 1.17). */
  rrfWeights: boolean;
}

export const ALL_FUSION_CAPABILITIES: FusionCapabilities = { rrfK: true, rrfWeights: true };

/** Capabilities of a server version string ("1.17.0"); unknown or unparsable versions get none. */
export function fusionCapabilities(version: string | undefined): FusionCapabilities {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return { rrfK: false, rrfWeights: false };
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const atLeast = (mi: number) => major > 1 || (major === 1 && minor >= mi);
  return { rrfK: atLeast(16), rrfWeights: atLeast(17) };
}

/** The fusion setting both profiles share (`FusionMethod` in server/services/search/tuning.ts). */
export type FusionSetting = FusionMethod;

/** RRF constant used when the embedded setting is a score fusion Qdrant does not offer. */
export const FALLBACK_RRF_K = 60;

/**
 * The fusion query of the hybrid modes. The embedded index computes Σ weight / (k + rank) with ranks
 * from 1; Qdrant ranks from 0, so its k is the embedded k + 1 and the scores are identical. Weighted
 * min-max / z-score fusion has no Qdrant equivalent (DBSF normalises differently and takes no
 * weights): RRF with k = 60 stands in. Older servers lose what they cannot express: without
 * `rrf.weights` (< 1.17) every channel weighs 1; without `rrf.k` (< 1.16) Qdrant's default k = 2.
 */
export function fusionQuery(method: FusionSetting, weights: readonly number[], caps: FusionCapabilities): Query {
  const k = (method.kind === 'rrf' ? method.k : FALLBACK_RRF_K) + 1;
  const equal = weights.every((w) => w === weights[0]);
  if (caps.rrfWeights && !equal) return { rrf: { k, weights: [...weights] } };
  if (caps.rrfK) return { rrf: { k } };
  return { fusion: 'rrf' };
}

// ---- search ------------------------------------------------------------------------------------------

export interface ChannelWeights {
  hybrid: { keyword: number; dense: number };
  'hybrid+graph': { keyword: number; dense: number; graph: number };
}

export interface SearchPlanInput {
  tenantId: string;
  query: SearchQuery;
  /** The query's filters as resolved by `resolveSearchFilter` (a search that can match nothing never gets here). */
  policy: SearchFilterPolicy;
  /** Candidates per channel (≥ offset + limit). */
  depth: number;
  fusion: FusionSetting;
  weights: ChannelWeights;
  capabilities: FusionCapabilities;
  /** The query's `text` vector (null: no searchable term). */
  textVector: SparseVector | null;
  /** The graph channel's weighted entity vector (null: no known entity, or not hybrid+graph). */
  graphVector: SparseVector | null;
}

/** Payload fields read back from search results. */
export const RESULT_PAYLOAD = ['tenant_id', 'memory_id', 'quality'];

/**
 * The one Query API request of a search, or null when no channel can produce a candidate.
 * - `vector-only`: nearest neighbours on `dense`.
 * - `hybrid`: prefetch BM25 (`text`) and `dense`, fused.
 * - `hybrid+graph`: the same plus a prefetch on `entities` with the graph weights.
 * A mode's channel without input (no term, no vector, no known entity) or at weight 0 is left out, as
 * in the embedded index; one remaining channel is queried directly (its raw scores, no fusion).
 * Every prefetch and the request itself carry the tenant filter.
 */
export function buildSearchRequest(p: SearchPlanInput): QueryRequest | null {
  const filter = tenantFilter(p.tenantId, { filters: p.policy });
  if (p.query.mode === 'vector-only') {
    if (!p.query.vector) return null;
    return {
      query: Array.from(p.query.vector),
      using: DENSE_VECTOR,
      filter,
      limit: p.depth,
      with_payload: RESULT_PAYLOAD,
    };
  }
  const w = p.query.mode === 'hybrid' ? { ...p.weights.hybrid, graph: 0 } : p.weights['hybrid+graph'];
  const channels: { weight: number; prefetch: Prefetch }[] = [];
  if (w.keyword > 0 && p.textVector) {
    channels.push({ weight: w.keyword, prefetch: { query: p.textVector, using: TEXT_VECTOR, filter, limit: p.depth } });
  }
  if (w.dense > 0 && p.query.vector) {
    channels.push({ weight: w.dense, prefetch: { query: Array.from(p.query.vector), using: DENSE_VECTOR, filter, limit: p.depth } });
  }
  if (w.graph > 0 && p.graphVector) {
    channels.push({ weight: w.graph, prefetch: { query: p.graphVector, using: ENTITY_VECTOR, filter, limit: p.depth } });
  }
  if (channels.length === 0) return null;
  if (channels.length === 1) {
    return { ...channels[0]!.prefetch, filter, limit: p.depth, with_payload: RESULT_PAYLOAD };
  }
  return {
    prefetch: channels.map((c) => c.prefetch),
    query: fusionQuery(
      p.fusion,
      channels.map((c) => c.weight),
      p.capabilities,
    ),
    filter,
    // Every distinct candidate of every channel, so `total` and the soft quality order see them all.
    limit: p.depth * channels.length,
    with_payload: RESULT_PAYLOAD,
  };
}

/**
 * Orders the fused candidates like the embedded index: those meeting `minQuality` first, each group by
 * score (higher first), ties by memory id; then offset and limit. `total` counts every candidate.
 * A point whose payload names another tenant is dropped (it cannot pass the filter; belt and braces).
 */
export function rankPoints(
  points: readonly Schemas['ScoredPoint'][],
  tenantId: string,
  offset: number,
  limit: number,
  minQuality: number | undefined,
): SearchResult {
  const threshold = minQuality ?? 0;
  const seen = new Set<string>();
  const rows: { memoryId: string; score: number; ok: number }[] = [];
  for (const pt of points) {
    const payload = pt.payload as Partial<MemoryPayload> | null | undefined;
    if (!payload || payload.tenant_id !== tenantId || typeof payload.memory_id !== 'string') continue;
    if (seen.has(payload.memory_id)) continue;
    seen.add(payload.memory_id);
    const quality = typeof payload.quality === 'number' ? payload.quality : 0;
    rows.push({ memoryId: payload.memory_id, score: pt.score, ok: quality >= threshold ? 1 : 0 });
  }
  rows.sort((a, b) => b.ok - a.ok || b.score - a.score || (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0));
  return {
    hits: rows.slice(offset, offset + limit).map(({ memoryId, score }) => ({ memoryId, score })),
    total: rows.length,
  };
}
