/**
 * ANN recall: where a tenant's dense channel is approximate (the binary first pass or IVF), how much
 * of the full scan's top 10 and top 100 it finds, on the served queries and on a clustered set.
 */
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { createEmbedder } from '../../adapters/embeddings/index.js';
import { embeddedIndex, type Bench, type Tenant } from './bench-server.js';
import { clusteredVectors } from './clustered-vectors.js';
import type { RunContext } from './context.js';
import { f1, latency, type Latency } from './figures.js';

/** The served index's dimension: the default local model's (static USE-lite + hashed lexical features). */
export const SERVED_DIMENSION = createEmbedder({ provider: 'local' }).dimension;

/**
 * When a tenant's dense channel is approximate (the binary first pass above its threshold, or IVF),
 * the recall of that channel against the full scan on the served queries, logged and reported.
 */
export async function approximateRecall(ctx: RunContext, b: Bench, t: Tenant, key: string, ann: Record<string, unknown>): Promise<void> {
  const idx = embeddedIndex(b);
  const strategy = idx.denseStrategy(t.tenantId);
  ann[`${key}DenseStrategy`] = strategy;
  if (strategy === 'full scan') return;
  const queryVectors = await b.server.services.embedder.embed(ctx.queries.slice(0, ctx.settings.recallQueries));
  const r = await recallOf(
    idx,
    t.tenantId,
    queryVectors,
    `served tenant (${strategy}): memory and query vectors of the served model`,
    t.size,
  );
  ann[`${key}ServedQueries`] = r;
  console.log(
    `  ${strategy} recall (served queries, ${t.size.toLocaleString('en')}): @10 ${r.recallAt10.toFixed(4)}, @100 ${r.recallAt100.toFixed(4)}; approximate p50 ${f1(r.annMs.p50)} ms vs exact p50 ${f1(r.exactMs.p50)} ms`,
  );
}

export interface Recall {
  distribution: string;
  docs: number;
  queries: number;
  recallAt10: number;
  recallAt100: number;
  annMs: Latency;
  exactMs: Latency;
}

export async function recallOf(
  index: EmbeddedSearchIndex,
  tenantId: string,
  vectors: Float32Array[],
  distribution: string,
  docs: number,
): Promise<Recall> {
  let r10 = 0;
  let r100 = 0;
  const annMs: number[] = [];
  const exactMs: number[] = [];
  for (const v of vectors) {
    // The dense channel alone: vector-only search also spreads scores to adjacent memories, which is
    // not part of the approximation being measured.
    const q = { text: '', vector: v, mode: 'vector-only' as const, limit: 100, filters: { namespaces: null } };
    const t0 = performance.now();
    const approx = (await index.channelSearch(tenantId, 'dense', q)).hits.map((h) => h.memoryId);
    const t1 = performance.now();
    const exact = (await index.channelSearch(tenantId, 'dense', q, { exact: true })).hits.map((h) => h.memoryId);
    exactMs.push(performance.now() - t1);
    annMs.push(t1 - t0);
    const a10 = new Set(approx.slice(0, 10));
    const a100 = new Set(approx);
    r10 += exact.slice(0, 10).filter((id) => a10.has(id)).length / Math.max(1, Math.min(10, exact.length));
    r100 += exact.filter((id) => a100.has(id)).length / Math.max(1, exact.length);
  }
  return {
    distribution,
    docs,
    queries: vectors.length,
    recallAt10: r10 / vectors.length,
    recallAt100: r100 / vectors.length,
    annMs: latency(annMs),
    exactMs: latency(exactMs),
  };
}

/** IVF recall on the clustered set: default index options except the threshold, set so that IVF serves n vectors. */
export async function clusteredRecall(n: number, recallQueries: number): Promise<Recall & { buildMs: number; ivfBuildMs: number }> {
  const db = openInMemoryDatabase();
  const index = new EmbeddedSearchIndex(db, { model: 'synthetic-clustered', dimension: SERVED_DIMENSION }, { annThreshold: n - 1 });
  const vecs = clusteredVectors(n, 11, SERVED_DIMENSION);
  const t0 = performance.now();
  for (let i = 0; i < n; i += 5000) {
    await index.upsertMany(
      'c',
      vecs.slice(i, i + 5000).map((v, j) => ({
        memoryId: `c${i + j}`,
        namespace: 'default',
        agentId: null,
        title: '',
        content: '',
        tags: [],
        status: 'active' as const,
        injectionFlagged: false,
        quality: 1,
        createdAt: new Date(Date.UTC(2025, 0, 1) + (i + j) * 60_000).toISOString(),
        vector: v,
        entities: [],
      })),
    );
  }
  const buildMs = performance.now() - t0;
  const t1 = performance.now();
  await index.warm('c');
  const ivfBuildMs = performance.now() - t1;
  if (!index.annReady('c')) throw new Error('IVF did not build for the clustered set');
  const rec = await recallOf(
    index,
    'c',
    clusteredVectors(recallQueries, 12, SERVED_DIMENSION),
    'synthetic clustered (anisotropic two-level topics, see clusteredVectors)',
    n,
  );
  await index.close();
  db.close();
  return { ...rec, buildMs, ivfBuildMs };
}
