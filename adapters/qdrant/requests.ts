import type { Schemas } from '@qdrant/js-client-rest';
import type { IndexRemoval, IndexedMemory, SearchMode } from '../../server/ports/search-index.js';
import type { Channel, ChannelHit } from '../../server/services/search/fusion.js';
import type { FusionConfig } from '../../server/services/search/tuning.js';
import { documentEntityKeys } from './graph.js';
import { memoryPointId } from './ids.js';
import { DENSE_VECTOR, ENTITY_VECTOR, TEXT_VECTOR, type MemoryPayload, type TombstonePayload } from './schema.js';
import { documentTerms, entitySparseVector, type ColumnWeights, type SparseVector } from './sparse.js';

/**
 * Pure builders of what the Qdrant adapter sends, and of how it reads the answer. Kept apart from the
 * I/O so unit tests can assert the exact request bodies without a Qdrant server.
 */

type QueryRequest = Schemas['QueryRequest'];

// ---- writes ------------------------------------------------------------------------------------------

/** The point of one memory: deterministic id, tenant-tagged payload, the vectors it has. */
export function memoryPoint(
  tenantId: string,
  doc: IndexedMemory,
  weights: ColumnWeights,
): Schemas['PointStruct'] & { payload: MemoryPayload } {
  const vector: Record<string, number[] | SparseVector> = {};
  if (doc.vector) vector[DENSE_VECTOR] = Array.from(doc.vector);
  const terms = documentTerms(doc, weights);
  if (terms.vector) vector[TEXT_VECTOR] = terms.vector;
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
      terms: terms.termIds,
      doc_length: terms.length,
      ...(doc.committedVersion === undefined ? {} : { committed_version: doc.committedVersion }),
    },
  };
}

/**
 * The `update_filter` of an upsert of memory points: an existing point is replaced only when it does
 * not hold a higher committed version than the one written (equal is allowed: a retry, or a change of
 * status that made no new version). A point without a stored version (written before versions were
 * stored) never matches the range, so it is replaced; a new point is inserted whatever the filter
 * (Qdrant's conditional upsert, 1.16). A point written without a version is not fenced. One clause per
 * version in the batch, not per point.
 *
 * A tombstone (the memory left the index at version r) is replaced by no write of version r or older:
 * such a write is one that was on its way when the memory was deleted or merged. Since Qdrant inserts a
 * missing point whatever the filter, the tombstone is what keeps the point from coming back.
 */
export function staleWriteFence(
  points: readonly { id: string | number; payload: Pick<MemoryPayload, 'committed_version'> }[],
): Schemas['Filter'] {
  const byVersion = new Map<number | undefined, (string | number)[]>();
  for (const p of points) {
    const v = p.payload.committed_version;
    const ids = byVersion.get(v) ?? [];
    if (ids.length === 0) byVersion.set(v, ids);
    ids.push(p.id);
  }
  return {
    should: [...byVersion].map(([v, ids]): Schemas['Condition'] =>
      v === undefined
        ? { has_id: ids }
        : {
            must: [{ has_id: ids }],
            must_not: [
              { key: 'committed_version', range: { gt: v } },
              {
                must: [
                  { key: 'kind', match: { value: 'tombstone' } },
                  { key: 'committed_version', range: { gte: v } },
                ],
              },
            ],
          },
    ),
  };
}

/**
 * The filter of a follow-up on memory points just written (clearing `stale_entities`): each point
 * only while it still holds the version this batch wrote, so a newer write's state is left alone.
 */
export function writtenVersionFilter(
  points: readonly { id: string | number; payload: Pick<MemoryPayload, 'committed_version'> }[],
): Schemas['Filter'] {
  const byVersion = new Map<number | undefined, (string | number)[]>();
  for (const p of points) {
    const ids = byVersion.get(p.payload.committed_version) ?? [];
    if (ids.length === 0) byVersion.set(p.payload.committed_version, ids);
    ids.push(p.id);
  }
  return {
    should: [...byVersion].map(([v, ids]): Schemas['Condition'] =>
      v === undefined
        ? { must: [{ has_id: ids }, { key: 'kind', match: { value: 'memory' } }] }
        : { must: [{ has_id: ids }, { key: 'committed_version', match: { value: v } }, { key: 'kind', match: { value: 'memory' } }] },
    ),
  };
}

/** The point a removed memory's point becomes (see `TombstonePayload`). */
export function tombstonePoint(
  tenantId: string,
  removal: IndexRemoval,
  formerEntities: readonly string[],
  removedAt: string,
): Schemas['PointStruct'] & { payload: TombstonePayload } {
  return {
    id: memoryPointId(tenantId, removal.memoryId),
    vector: {},
    payload: {
      kind: 'tombstone',
      tenant_id: tenantId,
      memory_id: removal.memoryId,
      ...(removal.committedVersion === undefined ? {} : { committed_version: removal.committedVersion }),
      removed_at: removedAt,
      former_entities: [...formerEntities],
    },
  };
}

// ---- channels ----------------------------------------------------------------------------------------

/** The channels one search mode runs, with their fusion weights (a channel at weight 0 is not run), as the embedded index runs them. */
export function modeChannels(mode: SearchMode, weights: FusionConfig['weights']): { keyword: number; dense: number; graph: number } {
  if (mode === 'vector-only') return { keyword: 0, dense: 1, graph: 0 };
  if (mode === 'hybrid') return { ...weights.hybrid, graph: 0 };
  return { ...weights['hybrid+graph'] };
}

/** Payload fields every channel's candidates come back with: ranking (quality) and episodic context (namespace, time). */
export const RESULT_PAYLOAD = ['tenant_id', 'memory_id', 'quality', 'namespace', 'created_at'];

/** The dense channel: nearest neighbours of the query vector among the memories the filter allows. */
export function denseRequest(vector: Float32Array, filter: Schemas['Filter'], depth: number): QueryRequest {
  return { query: Array.from(vector), using: DENSE_VECTOR, filter, limit: depth, with_payload: RESULT_PAYLOAD };
}

/** The graph channel: memories scored by the summed weights of the weighted entities they mention. */
export function graphRequest(vector: SparseVector, filter: Schemas['Filter'], depth: number): QueryRequest {
  return { query: vector, using: ENTITY_VECTOR, filter, limit: depth, with_payload: RESULT_PAYLOAD };
}

/** What a candidate's payload tells the ranking and the episodic context. */
export interface CandidateInfo {
  quality: number;
  namespace: string;
  /** created_at in epoch milliseconds (NaN when it does not parse: such a memory lends and borrows nothing). */
  time: number;
  createdAt: string;
}

/**
 * One channel's answer as a fused channel keyed by memory id, best first as Qdrant returned it, and
 * what each candidate's payload says (added to `info`). A point whose payload names another tenant,
 * or none, is dropped (it cannot pass the filter; belt and braces), as is a repeated memory.
 */
export function readChannel(
  name: string,
  weight: number,
  points: readonly Schemas['ScoredPoint'][],
  tenantId: string,
  info: Map<string, CandidateInfo>,
): Channel<string> {
  const hits: ChannelHit<string>[] = [];
  const seen = new Set<string>();
  for (const pt of points) {
    const read = readCandidate(pt.payload, tenantId);
    if (!read || seen.has(read.memoryId)) continue;
    seen.add(read.memoryId);
    info.set(read.memoryId, read.info);
    hits.push({ key: read.memoryId, score: pt.score });
  }
  return { name, weight, hits };
}

/** A memory point's id and ranking fields, or null when the payload is not one of this tenant's memories. */
export function readCandidate(payload: unknown, tenantId: string): { memoryId: string; info: CandidateInfo } | null {
  const p = payload as Partial<MemoryPayload> | null | undefined;
  if (!p || p.tenant_id !== tenantId || typeof p.memory_id !== 'string') return null;
  const createdAt = typeof p.created_at === 'string' ? p.created_at : '';
  return {
    memoryId: p.memory_id,
    info: {
      quality: typeof p.quality === 'number' ? p.quality : 0,
      namespace: typeof p.namespace === 'string' ? p.namespace : '',
      time: Date.parse(createdAt),
      createdAt,
    },
  };
}
