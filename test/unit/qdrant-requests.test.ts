import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { runMigrations } from '../../adapters/embedded/database.js';
import { searchIndexMigration } from '../../adapters/embedded/migrations/0030_search_index.js';
import { searchTermsMigration } from '../../adapters/embedded/migrations/0031_search_terms.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { resolveSearchFilter } from '../../server/services/search/filter-policy.js';
import { DEFAULT_FUSION, DEFAULT_GRAPH, DEFAULT_KEYWORD } from '../../server/services/search/tuning.js';
import { documentEntityKeys, graphQueryKeys, graphWeights } from '../../adapters/qdrant/graph.js';
import { memoryPointId } from '../../adapters/qdrant/ids.js';
import {
  ALL_FUSION_CAPABILITIES,
  buildSearchRequest,
  fusionCapabilities,
  fusionQuery,
  memoryPoint,
  rankPoints,
  type SearchPlanInput,
} from '../../adapters/qdrant/requests.js';
import { DEFAULT_BM25, documentSparseVector, querySparseVector, type SparseVector } from '../../adapters/qdrant/sparse.js';
import type { IndexedMemory, SearchQuery } from '../../server/ports/search-index.js';
import { extractEntities } from '../../server/text/entities.js';

const TENANT_FILTER = {
  must: [
    { key: 'tenant_id', match: { value: 't1' } },
    { key: 'kind', match: { value: 'memory' } },
  ],
  must_not: [
    { key: 'status', match: { value: 'superseded' } },
    { key: 'injection_flagged', match: { value: true } },
  ],
};
const PAYLOAD = ['tenant_id', 'memory_id', 'quality'];
const VECTOR = new Float32Array([0.5, -0.5, 0, 1]);
const TEXT: SparseVector = { indices: [7, 9], values: [1, 2] };
const GRAPH: SparseVector = { indices: [3], values: [1.5] };

/** The channel weights the adapter mirrors from the embedded index (chosen there by measurement). */
const W = DEFAULT_FUSION.weights;

function plan(query: Partial<SearchQuery>, over: Partial<SearchPlanInput> = {}): SearchPlanInput {
  const full: SearchQuery = { text: 'q', vector: VECTOR, mode: 'hybrid', limit: 10, filters: { namespaces: null }, ...query };
  return {
    tenantId: 't1',
    query: full,
    policy: resolveSearchFilter(full.filters)!,
    depth: 100,
    fusion: DEFAULT_FUSION.method,
    weights: DEFAULT_FUSION.weights,
    capabilities: ALL_FUSION_CAPABILITIES,
    textVector: TEXT,
    graphVector: GRAPH,
    ...over,
  };
}

/** Every `filter` anywhere in a request. */
function filters(node: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(node)) for (const n of node) filters(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'filter') out.push(v);
      filters(v, out);
    }
  }
  return out;
}

describe('buildSearchRequest', () => {
  it('vector-only: one nearest-neighbour query on the dense vector', () => {
    expect(buildSearchRequest(plan({ mode: 'vector-only' }))).toEqual({
      query: [0.5, -0.5, 0, 1],
      using: 'dense',
      filter: TENANT_FILTER,
      limit: 100,
      with_payload: PAYLOAD,
    });
  });

  it('hybrid: BM25 and dense prefetches fused by RRF with the embedded k (Qdrant ranks from 0: k + 1)', () => {
    expect(buildSearchRequest(plan({ mode: 'hybrid' }))).toEqual({
      prefetch: [
        { query: TEXT, using: 'text', filter: TENANT_FILTER, limit: 100 },
        { query: [0.5, -0.5, 0, 1], using: 'dense', filter: TENANT_FILTER, limit: 100 },
      ],
      query: { rrf: { k: 61, weights: [W.hybrid.keyword, W.hybrid.dense] } },
      filter: TENANT_FILTER,
      limit: 200,
      with_payload: PAYLOAD,
    });
  });

  it('hybrid+graph: a third prefetch on the entity vector, channel weights passed to RRF', () => {
    expect(buildSearchRequest(plan({ mode: 'hybrid+graph' }))).toEqual({
      prefetch: [
        { query: TEXT, using: 'text', filter: TENANT_FILTER, limit: 100 },
        { query: [0.5, -0.5, 0, 1], using: 'dense', filter: TENANT_FILTER, limit: 100 },
        { query: GRAPH, using: 'entities', filter: TENANT_FILTER, limit: 100 },
      ],
      query: { rrf: { k: 61, weights: [W['hybrid+graph'].keyword, W['hybrid+graph'].dense, W['hybrid+graph'].graph] } },
      filter: TENANT_FILTER,
      limit: 300,
      with_payload: PAYLOAD,
    });
  });

  it('leaves out channels without input and queries a lone channel directly', () => {
    expect(buildSearchRequest(plan({ mode: 'hybrid', vector: null }))).toEqual({
      query: TEXT,
      using: 'text',
      filter: TENANT_FILTER,
      limit: 100,
      with_payload: PAYLOAD,
    });
    const noGraph = buildSearchRequest(plan({ mode: 'hybrid+graph' }, { graphVector: null }));
    expect(noGraph?.query).toEqual({ rrf: { k: 61, weights: [W['hybrid+graph'].keyword, W['hybrid+graph'].dense] } });
    expect(noGraph?.prefetch).toHaveLength(2);
    const graphAndText = buildSearchRequest(plan({ mode: 'hybrid+graph', vector: null }));
    expect(graphAndText?.query).toEqual({ rrf: { k: 61, weights: [W['hybrid+graph'].keyword, W['hybrid+graph'].graph] } });
    expect(buildSearchRequest(plan({ mode: 'vector-only', vector: null }))).toBeNull();
    expect(buildSearchRequest(plan({ mode: 'hybrid', vector: null }, { textVector: null }))).toBeNull();
  });

  it('puts the tenant filter on the request and on every prefetch, in every mode', () => {
    for (const mode of ['vector-only', 'hybrid', 'hybrid+graph'] as const) {
      const req = buildSearchRequest(plan({ mode, filters: { namespaces: ['n'], agentId: 'a' } }, { tenantId: 'tenant-x' }));
      const all = filters(req);
      expect(all.length, mode).toBe(mode === 'vector-only' ? 1 : mode === 'hybrid' ? 3 : 4);
      for (const f of all) {
        expect((f as { must: unknown[] }).must[0]).toEqual({ key: 'tenant_id', match: { value: 'tenant-x' } });
        expect((f as { must: unknown[] }).must).toContainEqual({ key: 'namespace', match: { any: ['n'] } });
      }
    }
  });

  it('asks every channel for at least offset + limit candidates via depth', () => {
    const req = buildSearchRequest(plan({ mode: 'hybrid', offset: 150, limit: 20 }, { depth: 170 }));
    expect(req?.limit).toBe(340);
    expect((req?.prefetch as { limit: number }[]).map((p) => p.limit)).toEqual([170, 170]);
  });
});

describe('fusion', () => {
  it('reads what the server version can express', () => {
    expect(fusionCapabilities('1.15.5')).toEqual({ rrfK: false, rrfWeights: false });
    expect(fusionCapabilities('1.16.2')).toEqual({ rrfK: true, rrfWeights: false });
    expect(fusionCapabilities('1.17.0')).toEqual({ rrfK: true, rrfWeights: true });
    expect(fusionCapabilities('v2.0.0')).toEqual({ rrfK: true, rrfWeights: true });
    expect(fusionCapabilities('dev')).toEqual({ rrfK: false, rrfWeights: false });
    expect(fusionCapabilities(undefined)).toEqual({ rrfK: false, rrfWeights: false });
  });

  it('degrades on older servers and maps score fusion to RRF', () => {
    const rrf = { kind: 'rrf' as const, k: 60 };
    expect(fusionQuery(rrf, [1, 1, 0.5], { rrfK: true, rrfWeights: true })).toEqual({ rrf: { k: 61, weights: [1, 1, 0.5] } });
    expect(fusionQuery(rrf, [1, 1, 0.5], { rrfK: true, rrfWeights: false })).toEqual({ rrf: { k: 61 } });
    expect(fusionQuery(rrf, [1, 1], { rrfK: false, rrfWeights: false })).toEqual({ fusion: 'rrf' });
    expect(fusionQuery({ kind: 'rrf', k: 10 }, [2, 2], ALL_FUSION_CAPABILITIES)).toEqual({ rrf: { k: 11 } });
    expect(fusionQuery({ kind: 'weighted', normalization: 'minmax' }, [1, 2], ALL_FUSION_CAPABILITIES)).toEqual({
      rrf: { k: 61, weights: [1, 2] },
    });
  });
});

describe('rankPoints', () => {
  const pt = (memory_id: string, score: number, quality = 0.8, tenant_id = 't1') => ({
    id: memory_id,
    version: 1,
    score,
    payload: { tenant_id, memory_id, quality },
  });

  it('orders by quality group, then score, then id; counts every candidate', () => {
    const points = [pt('a', 0.5, 0.1), pt('b', 0.9, 0.1), pt('c', 0.4), pt('d', 0.4), pt('e', 0.7)];
    expect(rankPoints(points, 't1', 0, 10, 0.5)).toEqual({
      hits: [
        { memoryId: 'e', score: 0.7 },
        { memoryId: 'c', score: 0.4 },
        { memoryId: 'd', score: 0.4 },
        { memoryId: 'b', score: 0.9 },
        { memoryId: 'a', score: 0.5 },
      ],
      total: 5,
    });
    expect(rankPoints(points, 't1', 0, 10, undefined).hits.map((h) => h.memoryId)).toEqual(['b', 'e', 'a', 'c', 'd']);
    expect(rankPoints(points, 't1', 1, 2, undefined)).toEqual({
      hits: [
        { memoryId: 'e', score: 0.7 },
        { memoryId: 'a', score: 0.5 },
      ],
      total: 5,
    });
    expect(rankPoints(points, 't1', 10, 2, undefined)).toEqual({ hits: [], total: 5 });
  });

  it('drops points of another tenant, without payload, or repeated', () => {
    const points = [pt('a', 1), pt('x', 2, 0.8, 't2'), { id: 'n', version: 1, score: 3 }, pt('a', 0.1)];
    expect(rankPoints(points, 't1', 0, 10, undefined)).toEqual({ hits: [{ memoryId: 'a', score: 1 }], total: 1 });
  });
});

describe('memoryPoint', () => {
  const doc: IndexedMemory = {
    memoryId: 'm-1',
    namespace: 'work',
    agentId: 'agent-7',
    title: 'Woodworking',
    content: 'Sarah signed up for a woodworking class.',
    tags: ['hobby'],
    status: 'archived',
    injectionFlagged: true,
    quality: 1.7,
    createdAt: '2025-01-02T03:04:05.000Z',
    vector: VECTOR,
    entities: [
      { key: 'sarah', name: 'Sarah', type: 'person' },
      { key: '', name: '', type: 'thing' },
      { key: 'sarah', name: 'sarah', type: 'person' },
      ...Array.from({ length: 20 }, (_, i) => ({ key: `e${i}`, name: `E${i}`, type: 'thing' as const })),
    ],
  };

  it('carries the tenant, the filter fields and the first 16 distinct entity keys; no text', () => {
    const p = memoryPoint('t1', doc, DEFAULT_KEYWORD, DEFAULT_BM25);
    expect(p.id).toBe(memoryPointId('t1', 'm-1'));
    expect(p.payload).toEqual({
      kind: 'memory',
      tenant_id: 't1',
      memory_id: 'm-1',
      namespace: 'work',
      agent_id: 'agent-7',
      status: 'archived',
      injection_flagged: true,
      quality: 1,
      created_at: '2025-01-02T03:04:05.000Z',
      entities: ['sarah', ...Array.from({ length: 15 }, (_, i) => `e${i}`)],
    });
    expect(JSON.stringify(p)).not.toContain('pottery class');
    const v = p.vector as Record<string, unknown>;
    expect(Object.keys(v).sort()).toEqual(['dense', 'entities', 'text']);
    expect(v.dense).toEqual([0.5, -0.5, 0, 1]);
    expect(v.text).toEqual(documentSparseVector(doc, DEFAULT_KEYWORD));
    expect((v.entities as SparseVector).indices).toHaveLength(16);
  });

  it('omits vectors it does not have and clamps an invalid quality to 0', () => {
    const p = memoryPoint(
      't1',
      { ...doc, vector: null, entities: [], title: '', content: '', tags: [], quality: Number.NaN },
      DEFAULT_KEYWORD,
      DEFAULT_BM25,
    );
    expect(p.vector).toEqual({});
    expect(p.payload.quality).toBe(0);
  });
});

describe('graph channel parity with the embedded index', () => {
  it('derives the same query keys and memory scores from the same counts', async () => {
    const notes = [
      'Sarah signed up for a woodworking class at the community workshop in Lisbon.',
      'Sarah and Emma went sailing near Lisbon in May 2023.',
      'Emma sketched a lighthouse; Sarah loved the sketch.',
      'The woodworking class made oak stools for Emma.',
      'Peter opened a bakery in Lisbon.',
      'Peter and Susan talked about the bakery and the woodworking class.',
      'Susan changed careers and started a bicycle repair shop.',
    ];
    const docs = notes.map((content, i) => ({ id: `n${i}`, content, keys: documentEntityKeys(extractEntities(content)) }));
    const db = new Database(':memory:');
    runMigrations(db, [searchIndexMigration, searchTermsMigration]);
    const index = new EmbeddedSearchIndex(db, { model: 'm', dimension: 4 });
    for (const d of docs) {
      await index.upsert('t', {
        memoryId: d.id,
        namespace: 'default',
        agentId: null,
        title: '',
        content: d.content,
        tags: [],
        status: 'active',
        injectionFlagged: false,
        quality: 1,
        createdAt: '2025-01-01T00:00:00.000Z',
        vector: null,
        entities: extractEntities(d.content),
      });
    }
    const df = new Map<string, number>();
    const cooc = new Map<string, Map<string, number>>();
    for (const d of docs) {
      for (const a of d.keys) {
        df.set(a, (df.get(a) ?? 0) + 1);
        for (const b of d.keys) {
          if (a === b) continue;
          const m = cooc.get(a) ?? new Map<string, number>();
          m.set(b, (m.get(b) ?? 0) + 1);
          cooc.set(a, m);
        }
      }
    }
    let compared = 0;
    for (const text of ['What did Sarah do in Lisbon?', 'woodworking class', 'Who runs the bakery?', 'lighthouse sketch', 'repair shop']) {
      const keys = graphQueryKeys(text);
      const seeds = keys.filter((k) => df.has(k)).map((k) => ({ key: k, df: df.get(k)! }));
      const neighbors = new Map(
        seeds.map((s) => [
          s.key,
          [...(cooc.get(s.key) ?? new Map<string, number>())].map(([key, c]) => ({ key, cooccurrences: c, df: df.get(key)! })),
        ]),
      );
      const weights = graphWeights({ tenantDocs: docs.length, seeds, neighbors }, DEFAULT_GRAPH);
      const expected = new Map<string, number>();
      for (const d of docs) {
        const s = d.keys.reduce((acc, k) => acc + (weights.get(k) ?? 0), 0);
        if (s > 0) expected.set(d.id, s);
      }
      const got = await index.channelSearch('t', 'graph', {
        text,
        vector: null,
        mode: 'hybrid+graph',
        limit: 50,
        filters: { namespaces: null },
      });
      expect(got.hits.length, text).toBe(expected.size);
      for (const h of got.hits) expect(h.score, `${text} → ${h.memoryId}`).toBeCloseTo(expected.get(h.memoryId)!, 9);
      compared += got.hits.length;
    }
    expect(compared).toBeGreaterThan(10);
    db.close();
  });

  it('honours maxDocFrequency and the neighbour cap', () => {
    const counts = {
      tenantDocs: 100,
      seeds: [
        { key: 'a', df: 10 },
        { key: 'common', df: 90 },
      ],
      neighbors: new Map([
        [
          'a',
          [
            { key: 'b', cooccurrences: 5, df: 20 },
            { key: 'c', cooccurrences: 1, df: 1 },
            { key: 'common', cooccurrences: 9, df: 90 },
          ],
        ],
      ]),
    };
    const w = graphWeights(counts, { hopWeight: 0.5, neighborsPerSeed: 1, maxDocFrequency: 50 });
    expect([...w.keys()].sort()).toEqual(['a', 'c']);
    expect(w.get('a')).toBeCloseTo(Math.log(1 + 100 / 10), 12);
    // c: 0.5 · 1/√(10·1) · ln(1 + 100/1) beats b: 0.5 · 5/√(10·20) · ln(1 + 100/20).
    expect(w.get('c')).toBeCloseTo((0.5 / Math.sqrt(10)) * Math.log(101), 12);
    expect(graphWeights(counts, { hopWeight: 0, neighborsPerSeed: 8, maxDocFrequency: 50 }).size).toBe(1);
  });

  it('forms query keys from entities, singular terms and adjacent pairs', () => {
    const keys = graphQueryKeys('Where are the woodworking classes of Sarah?');
    expect(keys).toEqual(expect.arrayContaining(['sarah', 'woodworking', 'class', 'woodworking class']));
    expect(keys).not.toContain('');
    expect(querySparseVector('the')).not.toBeNull();
  });
});
