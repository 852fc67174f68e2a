import type { Schemas } from '@qdrant/js-client-rest';
import type { Neighbours } from '../../server/services/search/episodic-context.js';
import type { SearchFilterPolicy } from '../../server/services/search/filter-policy.js';
import { tenantFilter } from './filters.js';
import { RESULT_PAYLOAD, readCandidate, type CandidateInfo } from './requests.js';

/**
 * The episodic-context look-ups on Qdrant (the rule is `server/services/search/episodic-context.ts`):
 * for every seed, the memory written just before it and just after it in its namespace, within the
 * window, among those the search's filters allow; all seeds in one batched request, two searches each,
 * ordered by `created_at` (a datetime payload index). The embedded index orders a namespace by
 * (created_at, document number); here by (created_at, memory id), the same order wherever two memories
 * were not written in the same millisecond.
 */

/** A search result lending its score: where it sits in its namespace's timeline. */
export interface ContextSeed {
  memoryId: string;
  namespace: string;
  /** created_at in epoch milliseconds. */
  time: number;
}

/**
 * Memories read on each side: more than one, so that memories sharing the seed's millisecond (ordered
 * by id here) do not hide the nearest one on the side asked.
 */
export const NEIGHBOUR_FETCH = 4;

/** Two searches per seed, before then after. */
export function neighbourRequests(
  tenantId: string,
  policy: SearchFilterPolicy,
  seeds: readonly ContextSeed[],
  windowMs: number,
): Schemas['QueryRequest'][] {
  const iso = (ms: number) => new Date(ms).toISOString();
  return seeds.flatMap((s) =>
    (['desc', 'asc'] as const).map((direction) => ({
      query: { order_by: { key: 'created_at', direction } },
      filter: tenantFilter(tenantId, {
        filters: policy,
        timeline: {
          namespace: s.namespace,
          from: iso(direction === 'desc' ? s.time - windowMs : s.time),
          to: iso(direction === 'desc' ? s.time : s.time + windowMs),
          except: s.memoryId,
        },
      }),
      limit: NEIGHBOUR_FETCH,
      with_payload: RESULT_PAYLOAD,
    })),
  );
}

/**
 * The seed's neighbours from its two answers: before, the latest (time, id) below the seed's; after, the
 * earliest above it. What each neighbour's payload says is added to `info`.
 */
export function readNeighbours(
  seed: ContextSeed,
  before: readonly Schemas['ScoredPoint'][],
  after: readonly Schemas['ScoredPoint'][],
  tenantId: string,
  info: Map<string, CandidateInfo>,
): Neighbours<string> {
  const pick = (points: readonly Schemas['ScoredPoint'][], side: -1 | 1): string | null => {
    let best: { memoryId: string; info: CandidateInfo } | null = null;
    for (const pt of points) {
      const c = readCandidate(pt.payload, tenantId);
      if (!c || c.memoryId === seed.memoryId || !Number.isFinite(c.info.time)) continue;
      if (Math.sign(compare(c.memoryId, c.info.time, seed.memoryId, seed.time)) !== side) continue;
      if (!best || Math.sign(compare(c.memoryId, c.info.time, best.memoryId, best.info.time)) === -side) best = c;
    }
    if (!best) return null;
    info.set(best.memoryId, best.info);
    return best.memoryId;
  };
  return { before: pick(before, -1), after: pick(after, 1) };
}

/** The timeline order: time, then memory id. */
function compare(aId: string, aTime: number, bId: string, bTime: number): number {
  if (aTime !== bTime) return aTime - bTime;
  return aId < bId ? -1 : aId > bId ? 1 : 0;
}
