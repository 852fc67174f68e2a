import { DEFAULT_CONTEXT, DEFAULT_FUSION, type FusionConfig } from '../../server/services/search/tuning.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { META_POINT_ID, entityPointId, memoryPointId } from '../../adapters/qdrant/ids.js';
import { PAYLOAD_INDEXES, collectionSpec } from '../../adapters/qdrant/schema.js';
import { createQdrantSearchIndex, resetQdrantSearchIndex, type QdrantSearchIndexOptions } from '../../adapters/qdrant/search-index.js';
import { AppError } from '../../server/errors.js';
import { EmbeddingModelMismatchError, SearchIndexLayoutError, type IndexedMemory } from '../../server/ports/search-index.js';
import { contextSeeds, lendToNeighbours } from '../../server/services/search/episodic-context.js';
import { fuseChannels } from '../../server/services/search/fusion.js';
import { rankCandidates } from '../../server/services/search/ranking.js';
import { termIndex } from '../../adapters/qdrant/sparse.js';

/**
 * Wire-level checks: the real @qdrant/js-client-rest talks HTTP to a recording server that answers
 * with canned, well-formed Qdrant responses. Nothing here tests search quality (no Qdrant runs on this
 * machine; the contract suite does that against a real server): it asserts the exact requests the
 * adapter sends (paths, `wait`, bodies, and the tenant filter on each) and how it reads answers.
 */

interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  body: any;
}

type Answer = { status?: number; result?: unknown; raw?: unknown; hang?: boolean } | undefined;

const DIM = 4;
const MODEL = 'test-model';

function collectionInfo(size = DIM, extra: Record<string, unknown> = {}) {
  return {
    status: 'green',
    optimizer_status: 'ok',
    segments_count: 1,
    config: {
      params: { vectors: { dense: { size, distance: 'Cosine' } }, sparse_vectors: { text: { modifier: 'none' }, entities: {} } },
      hnsw_config: {},
      optimizer_config: {},
    },
    payload_schema: {},
    ...extra,
  };
}

class FakeQdrant {
  readonly requests: Recorded[] = [];
  version = '1.17.0';
  exists = true;
  info: unknown = collectionInfo();
  meta: unknown = { kind: 'meta', embedding_model: MODEL, embedding_dimension: DIM, layout_version: 2 };
  /** Per-test overrides, tried first. */
  override: (r: Recorded) => Answer = () => undefined;
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const text = Buffer.concat(chunks).toString('utf8');
        const r: Recorded = {
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          body: text ? JSON.parse(text) : undefined,
        };
        this.requests.push(r);
        const a = this.override(r) ?? this.answer(r);
        if (a?.hang) return;
        res.writeHead(a?.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(a?.raw ?? { result: a?.result ?? null, status: 'ok', time: 0 }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private answer(r: Recorded): Answer {
    const p = r.path.replace(/^\/collections\/[^/]+/, '/c');
    if (r.path === '/') return { raw: { title: 'qdrant', version: this.version } };
    if (p === '/c/exists') return { result: { exists: this.exists } };
    if (p === '/c' && r.method === 'PUT') {
      this.exists = true;
      return { result: true };
    }
    if (p === '/c' && r.method === 'GET') return { result: this.info };
    if (p === '/c' && r.method === 'DELETE') {
      this.exists = false;
      this.meta = null;
      this.info = collectionInfo(DIM * 2);
      return { result: true };
    }
    if (p === '/c/index') return { result: { operation_id: 1, status: 'completed' } };
    if (p === '/c/points' && r.method === 'POST') {
      const ids: string[] = r.body.ids;
      return { result: ids.includes(META_POINT_ID) && this.meta ? [{ id: META_POINT_ID, payload: this.meta }] : [] };
    }
    if (p === '/c/points' && r.method === 'PUT') {
      // The metadata point is kept, as Qdrant would: later reads see what was written.
      const metaPoint = (r.body?.points ?? []).find((pt: { id: string }) => pt.id === META_POINT_ID);
      if (metaPoint) this.meta = metaPoint.payload;
      return { result: { operation_id: 2, status: 'completed' } };
    }
    if (p === '/c/points/payload' && r.method === 'POST') {
      if (r.body.points?.includes(META_POINT_ID) && this.meta) this.meta = { ...(this.meta as object), ...r.body.payload };
      return { result: { operation_id: 4, status: 'completed' } };
    }
    if (p === '/c/points/delete') return { result: { operation_id: 3, status: 'completed' } };
    if (p === '/c/points/count') return { result: { count: 1 } };
    if (p === '/c/facet') return { result: { hits: [] } };
    if (p === '/c/points/query/batch') return { result: (r.body.searches as unknown[]).map(() => ({ points: [] })) };
    return { status: 404, raw: { status: { error: `unexpected ${r.method} ${r.path}` } } };
  }

  /** Requests after the start-up sequence, without the method/path noise. */
  calls(from = 0): string[] {
    return this.requests.slice(from).map((r) => `${r.method} ${r.path.replace(/^\/collections\/[^/]+/, '/c')}`);
  }
}

let fake: FakeQdrant;
afterEach(async () => {
  await fake?.stop();
});

async function open(over: Partial<QdrantSearchIndexOptions> = {}, model = MODEL, dimension = DIM) {
  const url = await fake.start();
  return createQdrantSearchIndex({
    url,
    collection: 'mem',
    embedder: { model, dimension, init: async () => {} },
    timeoutMs: 2000,
    ...over,
  });
}

const doc = (over: Partial<IndexedMemory> = {}): IndexedMemory => ({
  memoryId: 'm1',
  namespace: 'default',
  agentId: null,
  title: '',
  content: 'Sarah went to Lisbon.',
  tags: [],
  status: 'active',
  injectionFlagged: false,
  quality: 0.5,
  createdAt: '2025-01-01T00:00:00.000Z',
  vector: new Float32Array([1, 0, 0, 0]),
  entities: [
    { key: 'sarah', name: 'Sarah', type: 'person' },
    { key: 'lisbon', name: 'Lisbon', type: 'place' },
  ],
  ...over,
});

const TENANT = (t: string) => ({ key: 'tenant_id', match: { value: t } });

describe('start-up', () => {
  it('creates a missing collection, its payload indexes and the metadata point', async () => {
    fake = new FakeQdrant();
    fake.exists = false;
    fake.meta = null;
    const index = await open();
    expect(index.indexInfo()).toEqual({ model: MODEL, dimension: DIM });
    expect(fake.calls()).toEqual([
      'GET /',
      'GET /c/exists',
      'PUT /c',
      'GET /c',
      ...PAYLOAD_INDEXES.map(() => 'PUT /c/index'),
      'POST /c/points',
      'PUT /c/points',
    ]);
    expect(fake.requests[2]!.body).toEqual(collectionSpec(DIM));
    expect(fake.requests[2]!.body).toEqual({
      vectors: { dense: { size: DIM, distance: 'Cosine' } },
      sparse_vectors: { text: { modifier: 'none' }, entities: { modifier: 'none' } },
    });
    const indexes = fake.requests.filter((r) => r.path.endsWith('/index'));
    expect(indexes.map((r) => r.body)).toContainEqual({ field_name: 'tenant_id', field_schema: { type: 'keyword', is_tenant: true } });
    expect(indexes.map((r) => r.body)).toContainEqual({ field_name: 'injection_flagged', field_schema: 'bool' });
    expect(indexes.map((r) => r.body)).toContainEqual({
      field_name: 'terms',
      field_schema: { type: 'integer', lookup: true, range: false },
    });
    expect(indexes.map((r) => r.body)).toContainEqual({
      field_name: 'doc_length',
      field_schema: { type: 'integer', lookup: true, range: false },
    });
    expect(indexes.map((r) => r.body)).toContainEqual({ field_name: 'created_at', field_schema: 'datetime' });
    expect(indexes.every((r) => r.query.get('wait') === 'true')).toBe(true);
    const meta = fake.requests.at(-1)!;
    expect(meta.query.get('wait')).toBe('true');
    expect(meta.body).toEqual({
      points: [
        {
          id: META_POINT_ID,
          vector: {},
          payload: { kind: 'meta', embedding_model: MODEL, embedding_dimension: DIM, layout_version: 2, reindex_incomplete: false },
        },
      ],
    });
  });

  it('reuses an existing collection and creates only missing payload indexes', async () => {
    fake = new FakeQdrant();
    const schema = Object.fromEntries(
      PAYLOAD_INDEXES.filter((i) => i.field !== 'entities').map((i) => [i.field, { data_type: 'keyword' }]),
    );
    fake.info = collectionInfo(DIM, { payload_schema: schema });
    await open();
    // The metadata point is read first (an older layout is refused before anything is added).
    expect(fake.calls()).toEqual(['GET /', 'GET /c/exists', 'GET /c', 'POST /c/points', 'PUT /c/index', 'POST /c/points']);
    expect(fake.requests[4]!.body).toEqual({ field_name: 'entities', field_schema: 'keyword' });
    expect(fake.requests[4]!.query.get('wait')).toBe('false');
  });

  it('refuses another model or dimension with the port error', async () => {
    fake = new FakeQdrant();
    const err = await open({}, 'other-model', DIM).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingModelMismatchError);
    expect(String((err as Error).message)).toMatch(/test-model.*other-model.*tenant-memory reindex/s);
    await fake.stop();
    fake = new FakeQdrant();
    const dim = await open({}, MODEL, 8).catch((e: unknown) => e);
    expect(dim).toBeInstanceOf(EmbeddingModelMismatchError);
    expect(String((dim as Error).message)).toMatch(/4 dimensions.*8 dimensions/s);
  });

  it('refuses a collection of another layout', async () => {
    fake = new FakeQdrant();
    fake.info = {
      ...collectionInfo(),
      config: { params: { vectors: { size: DIM, distance: 'Cosine' } }, hnsw_config: {}, optimizer_config: {} },
    };
    await expect(open()).rejects.toThrow(/does not have this service's layout/);
  });

  it('refuses a Qdrant older than 1.16 (no conditional upserts to fence stale writes)', async () => {
    fake = new FakeQdrant();
    fake.version = '1.15.5';
    await expect(open()).rejects.toThrow(/Qdrant 1\.15\.5 is too old.*1\.16 or newer/);
    expect(fake.calls()).toEqual(['GET /']);
  });

  it('refuses a collection written by the previous layout (collection-wide IDF), names the reindex, and changes nothing', async () => {
    fake = new FakeQdrant();
    const old = collectionInfo();
    (old.config.params.sparse_vectors as Record<string, unknown>).text = { modifier: 'idf' };
    fake.info = old;
    fake.meta = { kind: 'meta', embedding_model: MODEL, embedding_dimension: DIM, layout_version: 1 };
    const err = await open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchIndexLayoutError);
    expect(String((err as Error).message)).toMatch(/collection-wide IDF.*tenant-memory reindex/s);
    expect(fake.calls()).toEqual(['GET /', 'GET /c/exists', 'GET /c']);
    // A layout-1 metadata point on a collection without the modifier (an interrupted upgrade) is refused too.
    await fake.stop();
    fake = new FakeQdrant();
    fake.meta = { kind: 'meta', embedding_model: MODEL, embedding_dimension: DIM, layout_version: 1 };
    await expect(open()).rejects.toThrow(/records layout 1; this version reads 2.*tenant-memory reindex/s);
    expect(fake.calls()).toEqual(['GET /', 'GET /c/exists', 'GET /c', 'POST /c/points']);
  });
});

describe('reset and readiness', () => {
  it('reset drops the collection and records the new model and dimension', async () => {
    fake = new FakeQdrant();
    const url = await fake.start();
    // The collection on the server was built with another model and the previous layout; reset must not refuse it.
    fake.meta = { kind: 'meta', embedding_model: 'old-model', embedding_dimension: DIM, layout_version: 1 };
    const old = collectionInfo();
    (old.config.params.sparse_vectors as Record<string, unknown>).text = { modifier: 'idf' };
    fake.info = old;
    const index = await resetQdrantSearchIndex({
      url,
      collection: 'mem',
      embedder: { model: 'new-model', dimension: DIM * 2, init: async () => {} },
    });
    expect(index.indexInfo()).toEqual({ model: 'new-model', dimension: DIM * 2 });
    // The old collection is marked incomplete before it is dropped.
    expect(fake.calls().slice(0, 6)).toEqual([
      'GET /c/exists',
      'POST /c/points',
      'POST /c/points/payload',
      'DELETE /c',
      'GET /',
      'GET /c/exists',
    ]);
    expect(fake.requests.find((r) => r.path.endsWith('/points/payload'))!.body).toMatchObject({
      points: [META_POINT_ID],
      payload: { reindex_incomplete: true },
    });
    expect(fake.calls()).toContain('PUT /c');
    expect(fake.requests.find((r) => r.method === 'PUT' && r.path === '/collections/mem')!.body.vectors.dense.size).toBe(DIM * 2);
    // Marked incomplete from the moment the new collection exists, until the caller completes it.
    expect(index.reindexIncomplete()).toBe(true);
    expect(fake.meta).toMatchObject({ embedding_model: 'new-model', reindex_incomplete: true });
    const reopened = await createQdrantSearchIndex({
      url,
      collection: 'mem',
      embedder: { model: 'new-model', dimension: DIM * 2, init: async () => {} },
    });
    expect(reopened.reindexIncomplete()).toBe(true);
    await index.completeReindex();
    expect(index.reindexIncomplete()).toBe(false);
    const marked = fake.requests.at(-1)!;
    expect([marked.method, marked.path, marked.query.get('wait')]).toEqual(['POST', '/collections/mem/points/payload', 'true']);
    expect(marked.body).toMatchObject({ points: [META_POINT_ID], payload: { reindex_incomplete: false } });
    const afterwards = await createQdrantSearchIndex({
      url,
      collection: 'mem',
      embedder: { model: 'new-model', dimension: DIM * 2, init: async () => {} },
    });
    expect(afterwards.reindexIncomplete()).toBe(false);
  });

  it('ping answers while the collection exists and 503 when it is gone', async () => {
    fake = new FakeQdrant();
    const index = await open();
    await expect(index.ping()).resolves.toBeUndefined();
    fake.exists = false;
    await expect(index.ping()).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
  });
});

describe('writes', () => {
  // Kept: a point of a higher version, and a tombstone of a removal at this version or later.
  const fencedAt = (v: number) => [
    { key: 'committed_version', range: { gt: v } },
    {
      must: [
        { key: 'kind', match: { value: 'tombstone' } },
        { key: 'committed_version', range: { gte: v } },
      ],
    },
  ];

  it('upserts memory points conditionally: an existing point of a higher committed version, or a later tombstone, is kept', async () => {
    fake = new FakeQdrant();
    const index = await open();
    const from = fake.requests.length;
    await index.applyChanges('t1', [
      { op: 'upsert', doc: doc({ memoryId: 'a', committedVersion: 3 }) },
      { op: 'upsert', doc: doc({ memoryId: 'b', committedVersion: 1 }) },
      { op: 'upsert', doc: doc({ memoryId: 'c', committedVersion: 3 }) },
      { op: 'upsert', doc: doc({ memoryId: 'd' }) },
    ]);
    const upsert = fake.requests.slice(from).find((r) => r.method === 'PUT')!;
    expect(upsert.body.points.map((p: { payload: { committed_version?: number } }) => p.payload.committed_version)).toEqual([
      3,
      1,
      3,
      undefined,
    ]);
    const id = (m: string) => memoryPointId('t1', m);
    expect(upsert.body.update_filter).toEqual({
      should: [
        { must: [{ has_id: [id('a'), id('c')] }], must_not: fencedAt(3) },
        { must: [{ has_id: [id('b')] }], must_not: fencedAt(1) },
        { has_id: [id('d')] },
      ],
    });
  });

  it('upserts the memory point, then recounts its entities into statistics points', async () => {
    fake = new FakeQdrant();
    const index = await open();
    const from = fake.requests.length;
    await index.upsert('t1', doc());
    expect(fake.calls(from)).toEqual(['POST /c/points', 'PUT /c/points', 'POST /c/points/count', 'POST /c/points/count', 'PUT /c/points']);
    const [retrieve, upsert, countA, countB, stats] = fake.requests.slice(from);
    expect(retrieve!.body).toEqual({
      ids: [memoryPointId('t1', 'm1')],
      with_payload: ['kind', 'tenant_id', 'entities', 'stale_entities', 'former_entities', 'committed_version'],
      with_vector: false,
    });
    expect(upsert!.query.get('wait')).toBe('true');
    expect(upsert!.body.points).toHaveLength(1);
    expect(upsert!.body.points[0].id).toBe(memoryPointId('t1', 'm1'));
    expect(upsert!.body.points[0].payload).toMatchObject({
      kind: 'memory',
      tenant_id: 't1',
      memory_id: 'm1',
      entities: ['sarah', 'lisbon'],
    });
    expect(Object.keys(upsert!.body.points[0].vector).sort()).toEqual(['dense', 'entities', 'text']);
    expect([countA!.body, countB!.body]).toEqual(
      expect.arrayContaining([
        {
          filter: { must: [TENANT('t1'), { key: 'kind', match: { value: 'memory' } }, { key: 'entities', match: { value: 'sarah' } }] },
          exact: true,
        },
        {
          filter: { must: [TENANT('t1'), { key: 'kind', match: { value: 'memory' } }, { key: 'entities', match: { value: 'lisbon' } }] },
          exact: true,
        },
      ]),
    );
    expect(stats!.body.points).toEqual(
      expect.arrayContaining([
        { id: entityPointId('t1', 'sarah'), vector: {}, payload: { kind: 'entity', tenant_id: 't1', entity_key: 'sarah', df: 1 } },
        { id: entityPointId('t1', 'lisbon'), vector: {}, payload: { kind: 'entity', tenant_id: 't1', entity_key: 'lisbon', df: 1 } },
      ]),
    );
  });

  it('recounts every entity the memory holds or held (also an unchanged one), and deletes statistics that reach zero', async () => {
    fake = new FakeQdrant();
    const index = await open();
    fake.override = (r) => {
      if (r.method === 'POST' && r.path.endsWith('/points') && r.body.ids[0] === memoryPointId('t1', 'm1')) {
        return { result: [{ id: memoryPointId('t1', 'm1'), payload: { kind: 'memory', tenant_id: 't1', entities: ['sarah', 'paris'] } }] };
      }
      if (r.path.endsWith('/points/count')) return { result: { count: r.body.filter.must[2].match.value === 'paris' ? 0 : 3 } };
      return undefined;
    };
    const from = fake.requests.length;
    await index.upsert('t1', doc());
    const counted = fake.requests
      .slice(from)
      .filter((r) => r.path.endsWith('/count'))
      .map((r) => r.body.filter.must[2].match.value);
    expect(counted.sort()).toEqual(['lisbon', 'paris', 'sarah']);
    const del = fake.requests.slice(from).find((r) => r.path.endsWith('/points/delete'))!;
    expect(del.body).toEqual({ points: [entityPointId('t1', 'paris')] });
    const stats = fake.requests
      .slice(from)
      .filter((r) => r.method === 'PUT')
      .at(-1)!;
    expect(stats.body.points).toEqual(
      ['sarah', 'lisbon'].map((key) => ({
        id: entityPointId('t1', key),
        vector: {},
        payload: { kind: 'entity', tenant_id: 't1', entity_key: key, df: 3 },
      })),
    );
  });

  it('turns a removed memory into a tombstone, purges old tombstones, and removes the whole tenant by tenant filter', async () => {
    fake = new FakeQdrant();
    const index = await open();
    let from = fake.requests.length;
    await index.applyChanges('t1', [{ op: 'remove', memoryId: 'm1', committedVersion: 4 }]);
    expect(fake.calls(from)).toEqual(['POST /c/points', 'PUT /c/points', 'POST /c/points/delete']);
    const [, bury, purge] = fake.requests.slice(from);
    expect(bury!.query.get('wait')).toBe('true');
    // Unconditional: a removal is final.
    expect(bury!.body).toEqual({
      points: [
        {
          id: memoryPointId('t1', 'm1'),
          vector: {},
          payload: {
            kind: 'tombstone',
            tenant_id: 't1',
            memory_id: 'm1',
            committed_version: 4,
            removed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            former_entities: [],
          },
        },
      ],
    });
    const removedAt = Date.parse(bury!.body.points[0].payload.removed_at);
    expect(purge!.body.filter.must).toEqual([
      TENANT('t1'),
      { key: 'kind', match: { value: 'tombstone' } },
      { key: 'removed_at', range: { lt: new Date(removedAt - 24 * 3600_000).toISOString() } },
    ]);
    from = fake.requests.length;
    await index.removeTenant('t1');
    expect(fake.calls(from)).toEqual(['POST /c/points/delete']);
    expect(fake.requests.at(-1)!.body).toEqual({ filter: { must: [TENANT('t1')] } });
  });

  it('refuses a vector of another dimension before sending anything', async () => {
    fake = new FakeQdrant();
    const index = await open();
    const from = fake.requests.length;
    await expect(index.upsert('t1', doc({ vector: new Float32Array(5) }))).rejects.toThrow(/dimensions/);
    expect(fake.requests.length).toBe(from);
  });
});

describe('search', () => {
  const T0 = Date.parse('2025-01-01T00:00:00.000Z');
  const point = (memory_id: string, score: number, quality: number, minute: number) => ({
    id: `p-${memory_id}`,
    version: 1,
    score,
    payload: { tenant_id: 't1', memory_id, quality, namespace: 'default', created_at: new Date(T0 + minute * 60_000).toISOString() },
  });
  /** Channel lists whose weighted min-max fusion (the embedded default) and Qdrant's weighted RRF order differently. */
  const KEYWORD = [point('a', 10, 0.9, 0), point('b', 9.9, 0.1, 5), point('c', 1, 0.9, 10)];
  const DENSE = [point('c', 0.9, 0.9, 10), point('b', 0.5, 0.1, 5), point('a', 0.1, 0.9, 0)];
  const GRAPH = [point('c', 3, 0.9, 10)];
  /** Episodic context: memory n1, written a minute after a. */
  const N1 = point('n1', 0, 0.9, 1);

  function cannedSearch(f: FakeQdrant, stats: Map<string, unknown>) {
    f.override = (r) => {
      if (r.method === 'POST' && r.path.endsWith('/points')) {
        return { result: (r.body.ids as string[]).flatMap((id) => (stats.has(id) ? [stats.get(id)] : [])) };
      }
      if (r.path.endsWith('/points/count')) {
        const term = (r.body.filter.must as { key: string }[]).some((c) => c.key === 'terms');
        return { result: { count: term ? 3 : 10 } };
      }
      if (r.path.endsWith('/facet')) {
        if (r.body.key === 'doc_length') {
          return {
            result: {
              hits: [
                { value: 20, count: 6 },
                { value: 30, count: 4 },
              ],
            },
          };
        }
        return {
          result: {
            hits: [
              { value: 'sarah', count: 2 },
              { value: 'lisbon', count: 1 },
            ],
          },
        };
      }
      if (r.path.endsWith('/points/query/batch')) {
        const searches = r.body.searches as {
          query: { order_by?: { direction: string } };
          filter: { must_not: { key: string; match: { value: string } }[] };
        }[];
        if (searches[0]?.query.order_by) {
          return {
            result: searches.map((q) => {
              const seed = q.filter.must_not.find((c) => c.key === 'memory_id')!.match.value;
              return { points: seed === 'a' && q.query.order_by!.direction === 'asc' ? [N1] : [] };
            }),
          };
        }
        return { result: [{ points: KEYWORD }, { points: DENSE }, { points: GRAPH }] };
      }
      return undefined;
    };
  }

  const entityStats = () =>
    new Map(
      [
        ['sarah', 2],
        ['lisbon', 4],
      ].map(([key, df]) => [
        entityPointId('t1', key as string),
        { id: entityPointId('t1', key as string), payload: { kind: 'entity', tenant_id: 't1', entity_key: key, df } },
      ]),
    );

  const QUERY = {
    text: 'Where did Sarah go?',
    vector: new Float32Array([0, 1, 0, 0]),
    mode: 'hybrid+graph' as const,
    limit: 5,
    filters: { namespaces: ['default'], minQuality: 0.5 },
  };

  it('hybrid+graph: reads the tenant’s statistics, fetches the three channels in one batched request, then the context in another; every filter names the tenant', async () => {
    fake = new FakeQdrant();
    const index = await open();
    cannedSearch(fake, entityStats());
    const from = fake.requests.length;
    await index.search('t1', QUERY);
    const sent = fake.requests.slice(from);
    expect(sent.map((r) => r.path.replace(/^\/collections\/[^/]+/, '/c')).sort()).toEqual(
      [
        '/c/points/count',
        '/c/points/count',
        '/c/facet',
        '/c/points',
        '/c/facet',
        '/c/points',
        '/c/points/query/batch',
        '/c/points/query/batch',
      ].sort(),
    );
    // Statistics of the tenant alone: its memories, their lengths, the term's frequency.
    const counts = sent.filter((r) => r.path.endsWith('/points/count')).map((r) => r.body);
    expect(counts).toContainEqual({ filter: { must: [TENANT('t1'), { key: 'kind', match: { value: 'memory' } }] }, exact: true });
    expect(counts).toContainEqual({
      filter: { must: [TENANT('t1'), { key: 'kind', match: { value: 'memory' } }, { key: 'terms', match: { value: termIndex('sarah') } }] },
      exact: true,
    });
    const facets = sent.filter((r) => r.path.endsWith('/facet')).map((r) => r.body);
    expect(facets).toContainEqual({
      key: 'doc_length',
      filter: { must: [TENANT('t1'), { key: 'kind', match: { value: 'memory' } }] },
      limit: 1_000_000,
      exact: false,
    });
    expect(facets).toContainEqual({
      key: 'entities',
      filter: { must: [TENANT('t1'), { key: 'kind', match: { value: 'memory' } }, { key: 'entities', match: { value: 'sarah' } }] },
      limit: 33,
      exact: false,
    });
    // One batch: the channels in order, each its own ranked list; no server-side fusion.
    const [channels, context] = sent.filter((r) => r.path.endsWith('/points/query/batch')).map((r) => r.body.searches);
    expect(channels).toHaveLength(3);
    const [keyword, dense, graph] = channels;
    expect(keyword.prefetch).toEqual([
      { query: { indices: [termIndex('sarah')], values: [1] }, using: 'text', filter: keyword.filter, limit: 19 },
    ]);
    const idf = Math.log((10 - 3 + 0.5) / (3 + 0.5));
    expect(keyword.query.formula.mult[0]).toBeCloseTo(idf * 2.2, 12);
    expect(keyword.query.formula.mult[1].div.right.sum[2].mult[0]).toBeCloseTo((1.2 * 0.75) / 24, 12);
    expect(dense).toMatchObject({ query: [0, 1, 0, 0], using: 'dense', limit: 100 });
    expect(graph).toMatchObject({ using: 'entities', limit: 100 });
    // sarah: ln(1 + 10/2); lisbon (1 hop): 0.5 · 1/√(2·4) · ln(1 + 10/4).
    expect([...graph.query.values].sort((a: number, b: number) => b - a)).toEqual([
      expect.closeTo(Math.log(6), 6),
      expect.closeTo((0.5 / Math.sqrt(8)) * Math.log(3.5), 6),
    ]);
    for (const c of channels) expect(JSON.stringify(c)).not.toMatch(/"rrf"|"fusion"/);
    // Two context look-ups per fused candidate.
    expect(context).toHaveLength(6);
    for (const r of sent) {
      const all: { must: unknown[] }[] = [];
      const walk = (n: unknown) => {
        if (Array.isArray(n)) n.forEach(walk);
        else if (n && typeof n === 'object') {
          for (const [k, v] of Object.entries(n)) {
            if (k === 'filter') all.push(v as { must: unknown[] });
            else walk(v);
          }
        }
      };
      walk(r.body);
      if (!r.path.endsWith('/points')) expect(all.length, r.path).toBeGreaterThan(0);
      for (const f of all) expect(f.must[0], r.path).toEqual(TENANT('t1'));
    }
  });

  it('ranks through the shared functions: fusion, episodic context and final order give the embedded answer for these lists', async () => {
    fake = new FakeQdrant();
    const index = await open();
    cannedSearch(fake, entityStats());
    const res = await index.search('t1', QUERY);
    // The embedded index's pipeline over the same channel lists.
    const w = DEFAULT_FUSION.weights['hybrid+graph'];
    const list = (pts: typeof KEYWORD) => pts.map((p) => ({ key: p.payload.memory_id, score: p.score }));
    const fused = fuseChannels(
      [
        { name: 'keyword', weight: w.keyword, hits: list(KEYWORD) },
        { name: 'dense', weight: w.dense, hits: list(DENSE) },
        { name: 'graph', weight: w.graph, hits: list(GRAPH) },
      ],
      DEFAULT_FUSION.method,
    );
    const seeds = contextSeeds(fused, DEFAULT_CONTEXT.candidates, (a, b) => a < b);
    lendToNeighbours(fused, seeds, DEFAULT_CONTEXT.weight['hybrid+graph'], (k) => ({ before: null, after: k === 'a' ? 'n1' : null }));
    const quality = new Map([...KEYWORD, N1].map((p) => [p.payload.memory_id, p.payload.quality]));
    const expected = rankCandidates(
      [...fused].map(([memoryId, score]) => ({ memoryId, score, quality: quality.get(memoryId)! })),
      0,
      5,
      0.5,
    );
    expect(res).toEqual(expected);
    // Fused, b (1.139) leads a (1) and c (0.45); n1, which no channel found, borrows 0.6 of a's score;
    // b, below minQuality, comes after the rest. Qdrant's weighted RRF would have put c first.
    expect(res.hits.map((h) => h.memoryId)).toEqual(['a', 'n1', 'c', 'b']);
    expect(res.hits[1]!.score).toBeCloseTo(0.6 * res.hits[0]!.score, 12);
    expect(res.total).toBe(4);
  });

  it('fuses with the configured method: RRF is Σ weight / (k + rank), ranks from 1', async () => {
    fake = new FakeQdrant();
    const fusion: FusionConfig = { method: { kind: 'rrf', k: 60 }, weights: DEFAULT_FUSION.weights };
    const index = await open({ fusion, context: { ...DEFAULT_CONTEXT, weight: { 'vector-only': 0, hybrid: 0, 'hybrid+graph': 0 } } });
    cannedSearch(fake, entityStats());
    const res = await index.search('t1', { ...QUERY, filters: { namespaces: ['default'] } });
    const w = DEFAULT_FUSION.weights['hybrid+graph'];
    expect(new Map(res.hits.map((h) => [h.memoryId, h.score]))).toEqual(
      new Map([
        ['a', expect.closeTo(w.keyword / 61 + w.dense / 63, 12)],
        ['b', expect.closeTo(w.keyword / 62 + w.dense / 62, 12)],
        ['c', expect.closeTo(w.keyword / 63 + w.dense / 61 + w.graph / 61, 12)],
      ]),
    );
  });

  it('answers an empty namespace list without asking Qdrant', async () => {
    fake = new FakeQdrant();
    const index = await open();
    const from = fake.requests.length;
    expect(await index.search('t1', { text: 'x', vector: null, mode: 'hybrid', limit: 5, filters: { namespaces: [] } })).toEqual({
      hits: [],
      total: 0,
    });
    expect(fake.requests.length).toBe(from);
  });
});

describe('failures', () => {
  it('needs an address', async () => {
    await expect(
      createQdrantSearchIndex({ collection: 'mem', embedder: { model: MODEL, dimension: DIM, init: async () => {} } }),
    ).rejects.toThrow(/QDRANT_URL/);
  });

  it('turns an unreachable Qdrant into DEPENDENCY_UNAVAILABLE at start-up', async () => {
    fake = new FakeQdrant();
    const url = await fake.start();
    await fake.stop();
    const err = await createQdrantSearchIndex({
      url,
      collection: 'mem',
      embedder: { model: MODEL, dimension: DIM, init: async () => {} },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('DEPENDENCY_UNAVAILABLE');
    expect((err as AppError).status).toBe(503);
    expect((err as AppError).message).not.toContain('127.0.0.1');
  });

  it('maps 5xx and timeouts to DEPENDENCY_UNAVAILABLE, leaves request bugs (400) alone', async () => {
    fake = new FakeQdrant();
    const index = await open({ timeoutMs: 300 });
    const q = { text: 'lisbon', vector: null, mode: 'hybrid' as const, limit: 5, filters: { namespaces: null } };
    fake.override = (r) => (r.path.endsWith('/points/query/batch') ? { status: 503, raw: { status: { error: 'overloaded' } } } : undefined);
    await expect(index.search('t1', q)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    fake.override = (r) => (r.path.endsWith('/points/query/batch') ? { hang: true } : undefined);
    await expect(index.search('t1', q)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    fake.override = (r) =>
      r.path.endsWith('/points/query/batch') ? { status: 400, raw: { status: { error: 'bad request' } } } : undefined;
    const bug = await index.search('t1', q).catch((e: unknown) => e);
    expect(bug).not.toBeInstanceOf(AppError);
    expect(bug).toBeInstanceOf(Error);
  });
});
