import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { runMigrations } from '../../adapters/embedded/database.js';
import { searchIndexMigration } from '../../adapters/embedded/migrations/0030_search_index.js';
import { searchTermsMigration } from '../../adapters/embedded/migrations/0031_search_terms.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { neighbourRequests, readNeighbours, NEIGHBOUR_FETCH } from '../../adapters/qdrant/context-requests.js';
import { tenantFilter } from '../../adapters/qdrant/filters.js';
import { resolveSearchFilter } from '../../server/services/search/filter-policy.js';
import { DEFAULT_FUSION, DEFAULT_GRAPH, DEFAULT_KEYWORD } from '../../server/services/search/tuning.js';
import { MAX_GRAPH_ENTITIES, documentEntityKeys, graphQueryKeys, graphWeights } from '../../adapters/qdrant/graph.js';
import { memoryPointId } from '../../adapters/qdrant/ids.js';
import { denseRequest, graphRequest, memoryPoint, modeChannels, readChannel, type CandidateInfo } from '../../adapters/qdrant/requests.js';
import { documentTerms, queryTermIds, type SparseVector } from '../../adapters/qdrant/sparse.js';
import type { IndexedMemory } from '../../server/ports/search-index.js';
import { extractEntities } from '../../server/text/entities.js';

const POLICY = resolveSearchFilter({ namespaces: null })!;
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
const PAYLOAD = ['tenant_id', 'memory_id', 'quality', 'namespace', 'created_at'];
const VECTOR = new Float32Array([0.5, -0.5, 0, 1]);
const GRAPH: SparseVector = { indices: [3], values: [1.5] };

describe('channel requests', () => {
  it('runs the channels of each mode at the embedded index’s weights', () => {
    const w = DEFAULT_FUSION.weights;
    expect(modeChannels('vector-only', w)).toEqual({ keyword: 0, dense: 1, graph: 0 });
    expect(modeChannels('hybrid', w)).toEqual({ ...w.hybrid, graph: 0 });
    expect(modeChannels('hybrid+graph', w)).toEqual(w['hybrid+graph']);
  });

  it('dense: nearest neighbours on the dense vector; graph: the weighted entity query; each with the tenant filter', () => {
    const filter = tenantFilter('t1', { filters: POLICY });
    expect(filter).toEqual(TENANT_FILTER);
    expect(denseRequest(VECTOR, filter, 100)).toEqual({
      query: [0.5, -0.5, 0, 1],
      using: 'dense',
      filter: TENANT_FILTER,
      limit: 100,
      with_payload: PAYLOAD,
    });
    expect(graphRequest(GRAPH, filter, 170)).toEqual({
      query: GRAPH,
      using: 'entities',
      filter: TENANT_FILTER,
      limit: 170,
      with_payload: PAYLOAD,
    });
  });
});

describe('readChannel', () => {
  const pt = (memory_id: string, score: number, over: Record<string, unknown> = {}) => ({
    id: memory_id,
    version: 1,
    score,
    payload: { tenant_id: 't1', memory_id, quality: 0.8, namespace: 'n', created_at: '2025-01-01T00:00:00.000Z', ...over },
  });

  it('keeps Qdrant’s order, keys hits by memory id and records what ranking and context need', () => {
    const info = new Map<string, CandidateInfo>();
    const c = readChannel('keyword', 1, [pt('b', 3), pt('a', 2, { quality: 0.1, namespace: 'm' })], 't1', info);
    expect(c).toEqual({
      name: 'keyword',
      weight: 1,
      hits: [
        { key: 'b', score: 3 },
        { key: 'a', score: 2 },
      ],
    });
    expect(info.get('a')).toEqual({
      quality: 0.1,
      namespace: 'm',
      time: Date.parse('2025-01-01T00:00:00.000Z'),
      createdAt: '2025-01-01T00:00:00.000Z',
    });
  });

  it('drops points of another tenant, without payload, or repeated', () => {
    const info = new Map<string, CandidateInfo>();
    const points = [pt('a', 1), pt('x', 2, { tenant_id: 't2' }), { id: 'n', version: 1, score: 3 }, pt('a', 0.1)];
    expect(readChannel('dense', 0.15, points, 't1', info).hits).toEqual([{ key: 'a', score: 1 }]);
    expect([...info.keys()]).toEqual(['a']);
  });
});

describe('episodic context look-ups', () => {
  const t = Date.parse('2025-03-01T10:00:00.000Z');
  const seed = { memoryId: 'm5', namespace: 'chat', time: t };

  it('asks, per seed, for the latest memory before and the earliest after it in its namespace and window, through the search filter', () => {
    const reqs = neighbourRequests('t1', POLICY, [seed], 30 * 60_000);
    const around = (from: string, to: string) => ({
      must: [...TENANT_FILTER.must, { key: 'namespace', match: { value: 'chat' } }, { key: 'created_at', range: { gte: from, lte: to } }],
      must_not: [{ key: 'memory_id', match: { value: 'm5' } }, ...TENANT_FILTER.must_not],
    });
    expect(reqs).toEqual([
      {
        query: { order_by: { key: 'created_at', direction: 'desc' } },
        filter: around('2025-03-01T09:30:00.000Z', '2025-03-01T10:00:00.000Z'),
        limit: NEIGHBOUR_FETCH,
        with_payload: PAYLOAD,
      },
      {
        query: { order_by: { key: 'created_at', direction: 'asc' } },
        filter: around('2025-03-01T10:00:00.000Z', '2025-03-01T10:30:00.000Z'),
        limit: NEIGHBOUR_FETCH,
        with_payload: PAYLOAD,
      },
    ]);
  });

  it('picks the nearest on each side in (time, memory id) order, memories of the same millisecond included', () => {
    const at = (memory_id: string, ms: number) => ({
      id: memory_id,
      version: 1,
      score: 0,
      payload: { tenant_id: 't1', memory_id, quality: 0.5, namespace: 'chat', created_at: new Date(t + ms).toISOString() },
    });
    const info = new Map<string, CandidateInfo>();
    // Same millisecond: m4 sorts before m5, m6 after it.
    const n = readNeighbours(seed, [at('m6', 0), at('m4', 0), at('m3', -1000)], [at('m4', 0), at('m6', 0), at('m7', 5)], 't1', info);
    expect(n).toEqual({ before: 'm4', after: 'm6' });
    expect([...info.keys()].sort()).toEqual(['m4', 'm6']);
    expect(
      readNeighbours(
        seed,
        [],
        [at('x', 10)].map((p) => ({ ...p, payload: { ...p.payload, tenant_id: 't2' } })),
        't1',
        info,
      ),
    ).toEqual({
      before: null,
      after: null,
    });
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
    const p = memoryPoint('t1', doc, DEFAULT_KEYWORD);
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
      terms: documentTerms(doc, DEFAULT_KEYWORD).termIds,
      // 1 title token, 7 content tokens, 1 tag token.
      doc_length: 9,
    });
    expect(JSON.stringify(p)).not.toContain('pottery class');
    const v = p.vector as Record<string, unknown>;
    expect(Object.keys(v).sort()).toEqual(['dense', 'entities', 'text']);
    expect(v.dense).toEqual([0.5, -0.5, 0, 1]);
    expect(v.text).toEqual(documentTerms(doc, DEFAULT_KEYWORD).vector);
    expect(p.payload.terms).toEqual((v.text as SparseVector).indices);
    expect((v.entities as SparseVector).indices).toHaveLength(16);
  });

  it('omits vectors it does not have and clamps an invalid quality to 0', () => {
    const p = memoryPoint(
      't1',
      { ...doc, vector: null, entities: [], title: '', content: '', tags: [], quality: Number.NaN },
      DEFAULT_KEYWORD,
    );
    expect(p.vector).toEqual({});
    expect(p.payload.quality).toBe(0);
    // An empty memory still counts towards the tenant's documents and average length, as in FTS5.
    expect(p.payload).toMatchObject({ terms: [], doc_length: 0 });
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
    const w = graphWeights(counts, { hopWeight: 0.5, neighborsPerSeed: 1, maxDocFrequency: 50, maxExpandFrequency: 50 });
    expect([...w.keys()].sort()).toEqual(['a', 'c']);
    expect(w.get('a')).toBeCloseTo(Math.log(1 + 100 / 10), 12);
    // c: 0.5 · 1/√(10·1) · ln(1 + 100/1) beats b: 0.5 · 5/√(10·20) · ln(1 + 100/20).
    expect(w.get('c')).toBeCloseTo((0.5 / Math.sqrt(10)) * Math.log(101), 12);
    expect(graphWeights(counts, { hopWeight: 0, neighborsPerSeed: 8, maxDocFrequency: 50, maxExpandFrequency: 50 }).size).toBe(1);
    // A seed mentioned by more than maxExpandFrequency memories is not expanded.
    expect([...graphWeights(counts, { hopWeight: 0.5, neighborsPerSeed: 1, maxDocFrequency: 50, maxExpandFrequency: 9 }).keys()]).toEqual([
      'a',
    ]);
  });

  it('follows only a seed’s most frequent companions (4 per neighbour kept) and keeps the 24 strongest entities, as the embedded index reads', () => {
    const g = { hopWeight: 0.5, neighborsPerSeed: 1, maxDocFrequency: 1000, maxExpandFrequency: 1000 };
    // Five companions; the rarest (most specific, so best scoring) is the fifth most frequent: not followed.
    const neighbors = new Map([
      [
        'a',
        [
          { key: 'b1', cooccurrences: 9, df: 90 },
          { key: 'b2', cooccurrences: 8, df: 90 },
          { key: 'b3', cooccurrences: 7, df: 90 },
          { key: 'b4', cooccurrences: 6, df: 90 },
          { key: 'rare', cooccurrences: 1, df: 1 },
        ],
      ],
    ]);
    const w = graphWeights({ tenantDocs: 100, seeds: [{ key: 'a', df: 10 }], neighbors }, g);
    expect([...w.keys()].sort()).toEqual(['a', 'b1']);
    const many = Array.from({ length: 30 }, (_, i) => ({ key: `s${String(i).padStart(2, '0')}`, df: i + 1 }));
    const capped = graphWeights({ tenantDocs: 100, seeds: many, neighbors: new Map() }, g);
    expect(capped.size).toBe(MAX_GRAPH_ENTITIES);
    expect(capped.has('s00') && !capped.has('s29')).toBe(true);
  });

  it('forms query keys from entities, singular terms and adjacent pairs', () => {
    const keys = graphQueryKeys('Where are the woodworking classes of Sarah?');
    expect(keys).toEqual(expect.arrayContaining(['sarah', 'woodworking', 'class', 'woodworking class']));
    expect(keys).not.toContain('');
    expect(queryTermIds('the')).toHaveLength(1);
  });
});
