import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import type { SearchQuery, SearchResult } from '../../server/ports/search-index.js';
import { contextSeeds, lendToNeighbours, type Neighbours } from '../../server/services/search/episodic-context.js';
import type { SearchFilterPolicy } from '../../server/services/search/filter-policy.js';
import { fuseChannels, type Channel } from '../../server/services/search/fusion.js';
import { rankCandidates } from '../../server/services/search/ranking.js';
import type { ContextConfig, FusionConfig } from '../../server/services/search/tuning.js';
import { neighbourRequests, readNeighbours, type ContextSeed } from './context-requests.js';
import { guarded } from './errors.js';
import { tenantFilter } from './filters.js';
import type { GraphParams } from './graph.js';
import { graphQueryVector } from './graph-lookup.js';
import { LENGTH_FACET_LIMIT, keywordRequest, lengthTotals, type KeywordStatistics } from './keyword.js';
import { PARALLEL_REQUESTS, mapLimit } from './parallel.js';
import { RESULT_PAYLOAD, denseRequest, graphRequest, modeChannels, readChannel, type CandidateInfo } from './requests.js';
import { queryTermIds, type QueryTerm } from './sparse.js';

/**
 * One search on Qdrant, ranked by the same functions as the embedded index:
 * 1. statistics of the tenant alone, in parallel: its memory count, for the keyword channel the summed
 *    length and each query term's document frequency, for the graph channel the query entities'
 *    frequencies and companions (graph-lookup.ts);
 * 2. the channels (keyword, dense, graph) in ONE batched Query API request, each its own ranked list;
 * 3. fusion (`fuseChannels`), episodic context (one more batched request for the seeds' neighbours,
 *    then `lendToNeighbours`) and the final order (`rankCandidates`), all from server/services/search.
 */

export interface QdrantSearchSettings {
  fusion: FusionConfig;
  graph: GraphParams;
  context: ContextConfig;
  /** Candidates each channel contributes (at least offset + limit). */
  depth: number;
  /** Most memories one keyword term's prefetch reads (keyword.ts). */
  keywordTermLimit: number;
}

export interface QdrantSearchTarget {
  client: QdrantClient;
  collection: string;
}

type ChannelName = 'keyword' | 'dense' | 'graph';

/** `policy` is the query's resolved filter (a search that can match nothing never gets here). */
export async function searchQdrant(
  target: QdrantSearchTarget,
  settings: QdrantSearchSettings,
  tenantId: string,
  query: SearchQuery,
  policy: SearchFilterPolicy,
): Promise<SearchResult> {
  const { client, collection } = target;
  const offset = query.offset ?? 0;
  const weights = modeChannels(query.mode, settings.fusion.weights);
  const terms = weights.keyword > 0 ? queryTermIds(query.text) : [];
  const filter = tenantFilter(tenantId, { filters: policy });

  // 1. Statistics.
  const needDocs = terms.length > 0 || weights.graph > 0;
  const tenantDocs = needDocs ? countMemories(target, tenantId) : Promise.resolve(0);
  const [statistics, graphVector] = await Promise.all([
    terms.length > 0 ? keywordStatistics(target, tenantId, terms, tenantDocs) : null,
    weights.graph > 0 ? graphQueryVector(target, tenantId, query.text, settings.graph, tenantDocs) : null,
    tenantDocs,
  ]);

  // 2. The channels, one batch.
  const planned: { name: ChannelName; weight: number; request: Schemas['QueryRequest'] }[] = [];
  const keyword = statistics
    ? keywordRequest({
        terms,
        statistics,
        filter,
        depth: settings.depth,
        termLimit: settings.keywordTermLimit,
        withPayload: RESULT_PAYLOAD,
      })
    : null;
  if (keyword) planned.push({ name: 'keyword', weight: weights.keyword, request: keyword });
  if (weights.dense > 0 && query.vector) {
    planned.push({ name: 'dense', weight: weights.dense, request: denseRequest(query.vector, filter, settings.depth) });
  }
  if (graphVector) planned.push({ name: 'graph', weight: weights.graph, request: graphRequest(graphVector, filter, settings.depth) });
  if (planned.length === 0) return { hits: [], total: 0 };
  const answers = await guarded('search', () => client.queryBatch(collection, { searches: planned.map((p) => p.request) }));
  const info = new Map<string, CandidateInfo>();
  const channels: Channel<string>[] = planned.map((p, i) => readChannel(p.name, p.weight, answers[i]?.points ?? [], tenantId, info));

  // 3. Fusion, episodic context, final order.
  const fused = fuseChannels(channels, settings.fusion.method);
  const lend = settings.context.weight[query.mode];
  if (lend > 0 && fused.size > 0) {
    const seeds = contextSeeds(fused, settings.context.candidates, (a, b) => a < b);
    const neighbours = await neighboursOf(target, tenantId, policy, seeds, settings.context.windowMs, info);
    lendToNeighbours(fused, seeds, lend, (key) => neighbours.get(key) ?? { before: null, after: null });
  }
  const candidates = [...fused].map(([memoryId, score]) => ({ memoryId, score, quality: info.get(memoryId)?.quality ?? 0 }));
  return rankCandidates(candidates, offset, query.limit, query.filters.minQuality);
}

/** The tenant's memories, every status (FTS5's N, the graph's N). */
async function countMemories(target: QdrantSearchTarget, tenantId: string): Promise<number> {
  const res = await guarded('search', () => target.client.count(target.collection, { filter: tenantFilter(tenantId), exact: true }));
  return res.count;
}

/**
 * The keyword statistics of the tenant: its memory count (shared with the graph channel), the summed
 * length of its memories (a facet of their `doc_length` values) and each query term's document
 * frequency (an exact count through the `terms` index). Nothing outside the tenant is read.
 * Exported for the test that checks it against FTS5 whatever other tenants hold.
 */
export async function keywordStatistics(
  target: QdrantSearchTarget,
  tenantId: string,
  terms: readonly QueryTerm[],
  tenantDocs: Promise<number>,
): Promise<KeywordStatistics> {
  const { client, collection } = target;
  const [lengths, counts, docs] = await Promise.all([
    guarded('search', () =>
      client.facet(collection, { key: 'doc_length', filter: tenantFilter(tenantId), limit: LENGTH_FACET_LIMIT, exact: false }),
    ),
    mapLimit(terms, PARALLEL_REQUESTS, (t) =>
      guarded('search', () => client.count(collection, { filter: tenantFilter(tenantId, { term: t.id }), exact: true })),
    ),
    tenantDocs,
  ]);
  // The facet's count of memories can differ from the exact count for a moment while Qdrant merges
  // segments; the average uses the facet's own count so that both come from one reading.
  const totals = lengthTotals(lengths.hits);
  return {
    docs,
    totalLength: totals.docs > 0 ? (totals.totalLength / totals.docs) * docs : 0,
    frequencies: new Map(terms.map((t, i) => [t.id, counts[i]!.count])),
  };
}

/** The seeds' neighbours, from one batched request (two searches per seed). */
async function neighboursOf(
  target: QdrantSearchTarget,
  tenantId: string,
  policy: SearchFilterPolicy,
  seeds: readonly (readonly [string, number])[],
  windowMs: number,
  info: Map<string, CandidateInfo>,
): Promise<Map<string, Neighbours<string>>> {
  const placed: ContextSeed[] = [];
  for (const [memoryId] of seeds) {
    const i = info.get(memoryId);
    if (i && Number.isFinite(i.time)) placed.push({ memoryId, namespace: i.namespace, time: i.time });
  }
  const out = new Map<string, Neighbours<string>>();
  if (placed.length === 0) return out;
  const answers = await guarded('search', () =>
    target.client.queryBatch(target.collection, { searches: neighbourRequests(tenantId, policy, placed, windowMs) }),
  );
  placed.forEach((s, i) => {
    out.set(s.memoryId, readNeighbours(s, answers[2 * i]?.points ?? [], answers[2 * i + 1]?.points ?? [], tenantId, info));
  });
  return out;
}
