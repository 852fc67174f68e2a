import { QdrantClient } from '@qdrant/js-client-rest';
import { describe, expect, it } from 'vitest';
import { createQdrantSearchIndex } from '../../adapters/qdrant/search-index.js';
import { entityPointId, memoryPointId } from '../../adapters/qdrant/ids.js';
import { QdrantIndexWriter, entityKeysToRecount } from '../../adapters/qdrant/index-writer.js';
import type { ExtractedEntity, IndexChange } from '../../server/ports/search-index.js';
import { DEFAULT_KEYWORD } from '../../server/services/search/tuning.js';
import { indexedMemory } from '../support/indexed-memory.js';
import { QdrantEmulator } from '../support/qdrant-emulator.js';

/**
 * The Qdrant index's write path, over a client that records what it is asked (the wire format itself
 * is checked in qdrant-wire.test.ts): how many requests a batch of the outbox or of a reindex costs.
 */

type Call = { op: 'retrieve' | 'upsert' | 'delete' | 'count'; body: any };

function recordingClient(stored: Record<string, string[]> = {}) {
  const calls: Call[] = [];
  const client = {
    async retrieve(_c: string, body: { ids: string[] }) {
      calls.push({ op: 'retrieve', body });
      return body.ids.filter((id) => stored[id]).map((id) => ({ id, payload: { kind: 'memory', tenant_id: 't1', entities: stored[id] } }));
    },
    async upsert(_c: string, body: unknown) {
      calls.push({ op: 'upsert', body });
      return { status: 'completed' };
    },
    async delete(_c: string, body: unknown) {
      calls.push({ op: 'delete', body });
      return { status: 'completed' };
    },
    async count(_c: string, body: { filter: { must: { match: { value: string } }[] } }) {
      calls.push({ op: 'count', body });
      return { count: body.filter.must[2]!.match.value === 'gone' ? 0 : 2 };
    },
  };
  return { calls, client: client as unknown as QdrantClient };
}

const ent = (...keys: string[]): ExtractedEntity[] => keys.map((key) => ({ key, name: key, type: 'thing' }));
const upsert = (id: string, ...keys: string[]): IndexChange => ({
  op: 'upsert',
  doc: indexedMemory(id, `about ${id}`, { entities: ent(...keys) }),
});
const settings = { info: { model: 'm', dimension: 4 }, keyword: DEFAULT_KEYWORD };
const counted = (calls: Call[]) => calls.filter((c) => c.op === 'count').map((c) => c.body.filter.must[2].match.value as string);

/** An index over a fresh emulated Qdrant, for one test. */
async function withIndex(fn: (index: Awaited<ReturnType<typeof createQdrantSearchIndex>>, emulator: QdrantEmulator) => Promise<void>) {
  const emulator = new QdrantEmulator();
  const url = await emulator.start();
  try {
    await fn(
      await createQdrantSearchIndex({ url, collection: 'c', embedder: { model: 'm', dimension: 4, init: async () => {} } }),
      emulator,
    );
  } finally {
    await emulator.stop();
  }
}

describe('entity keys a batch recounts', () => {
  it.each([
    ['a new point: all its keys', new Map(), [{ id: 'p1', entities: ['a', 'b'] }], [], ['a', 'b']],
    [
      'an unchanged point: its keys (a retry after a failed recount)',
      new Map([['p1', new Set(['a'])]]),
      [{ id: 'p1', entities: ['a'] }],
      [],
      ['a'],
    ],
    ['gained and lost keys: both', new Map([['p1', new Set(['a', 'b'])]]), [{ id: 'p1', entities: ['b', 'c'] }], [], ['b', 'c', 'a']],
    ['a removed point: its stored keys', new Map([['p2', new Set(['x'])]]), [], ['p2'], ['x']],
    ['a removed point never stored: none', new Map(), [], ['p3'], []],
    [
      'a key touched by many points of the batch: once',
      new Map([['p3', new Set(['a'])]]),
      [
        { id: 'p1', entities: ['a'] },
        { id: 'p2', entities: ['a', 'b'] },
      ],
      ['p3'],
      ['a', 'b'],
    ],
  ] as const)('%s', (_what, before, written, removed, keys) => {
    expect(entityKeysToRecount(before as Map<string, Set<string>>, written, removed)).toEqual(keys);
  });
});

describe('a batch of changes', () => {
  it('is one look-up, one upsert, one tombstone write and purge, and one count per entity key the batch touched', async () => {
    const { calls, client } = recordingClient({ [memoryPointId('t1', 'old')]: ['sarah', 'gone'] });
    const writer = new QdrantIndexWriter(client, 'c', settings);
    // 4 memories mention "sarah": recounted once, not four times.
    await writer.apply('t1', [
      upsert('m1', 'sarah', 'lisbon'),
      upsert('m2', 'sarah'),
      upsert('m3', 'sarah', 'paris'),
      { op: 'remove', memoryId: 'old' },
      upsert('m4', 'sarah', 'lisbon'),
    ]);
    expect(calls.map((c) => c.op)).toEqual([
      'retrieve',
      'upsert',
      'upsert',
      'delete',
      'count',
      'count',
      'count',
      'count',
      'upsert',
      'delete',
    ]);
    expect(calls[0]!.body.ids).toEqual([...['m1', 'm2', 'm3', 'm4', 'old'].map((id) => memoryPointId('t1', id))]);
    expect(calls[1]!.body.points.map((p: { id: string }) => p.id)).toEqual(['m1', 'm2', 'm3', 'm4'].map((id) => memoryPointId('t1', id)));
    // The removed memory's point becomes a tombstone that remembers the keys it held.
    expect(calls[2]!.body.points).toEqual([
      {
        id: memoryPointId('t1', 'old'),
        vector: {},
        payload: expect.objectContaining({ kind: 'tombstone', memory_id: 'old', former_entities: ['sarah', 'gone'] }),
      },
    ]);
    expect(calls[3]!.body.filter.must.slice(0, 2)).toEqual([
      { key: 'tenant_id', match: { value: 't1' } },
      { key: 'kind', match: { value: 'tombstone' } },
    ]);
    expect(counted(calls).sort()).toEqual(['gone', 'lisbon', 'paris', 'sarah']);
    expect(calls[9]!.body).toEqual({ wait: true, points: [entityPointId('t1', 'gone')] });
  });

  it('buries many memories in one write, and applies only the last change of a memory', async () => {
    const { calls, client } = recordingClient();
    const writer = new QdrantIndexWriter(client, 'c', settings);
    await writer.apply('t1', [
      upsert('a'),
      { op: 'remove', memoryId: 'b' },
      { op: 'remove', memoryId: 'a', committedVersion: 2 },
      { op: 'remove', memoryId: 'c' },
    ]);
    expect(calls.map((c) => c.op)).toEqual(['retrieve', 'upsert', 'delete']);
    expect(calls[1]!.body.points.map((p: { payload: { memory_id: string; committed_version?: number } }) => p.payload)).toEqual([
      expect.objectContaining({ memory_id: 'a', committed_version: 2 }),
      expect.not.objectContaining({ committed_version: expect.anything() }),
      expect.objectContaining({ memory_id: 'c' }),
    ]);
  });

  it('sends nothing for an empty batch, and refuses a vector of another dimension before sending anything', async () => {
    const { calls, client } = recordingClient();
    const writer = new QdrantIndexWriter(client, 'c', settings);
    await writer.apply('t1', []);
    await expect(writer.apply('t1', [{ op: 'upsert', doc: indexedMemory('x', 'x', { vector: new Float32Array(5) }) }])).rejects.toThrow(
      /5 dimensions/,
    );
    expect(calls).toEqual([]);
  });

  it('during a reindex, recounts each key of a tenant once, when the writes move on and at the end', async () => {
    const { calls, client } = recordingClient();
    const writer = new QdrantIndexWriter(client, 'c', settings);
    writer.deferRecounts(true);
    await writer.apply('t1', [upsert('m1', 'sarah'), upsert('m2', 'lisbon')]);
    await writer.apply('t1', [upsert('m3', 'sarah'), upsert('m4', 'lisbon', 'paris')]);
    expect(counted(calls)).toEqual([]);
    await writer.apply('t2', [upsert('m5', 'sarah')]);
    expect(counted(calls).sort()).toEqual(['lisbon', 'paris', 'sarah']);
    expect(calls.filter((c) => c.op === 'count').every((c) => c.body.filter.must[0].match.value === 't1')).toBe(true);
    await writer.flushDeferred();
    expect(counted(calls)).toHaveLength(4);
    expect(calls.at(-1)!.body.points.map((p: { payload: { tenant_id: string } }) => p.payload.tenant_id)).toEqual(['t2']);
  });
});

describe('a batch retried after a partial failure (emulated Qdrant)', () => {
  it('recounts its entities although its points were already written', async () => {
    const emulator = new QdrantEmulator();
    const url = await emulator.start();
    try {
      const index = await createQdrantSearchIndex({ url, collection: 'c', embedder: { model: 'm', dimension: 4, init: async () => {} } });
      const entityPoint = () => emulator.collections.get('c')!.points.get(entityPointId('t1', 'lisbon'))?.payload ?? null;
      // The upsert goes through, the recount fails: the batch fails and is retried as it was.
      emulator.failures.push('POST /collections/{c}/points/count');
      const batch = [upsert('m1', 'lisbon'), upsert('m2', 'lisbon', 'sarah')];
      await expect(index.applyChanges('t1', batch)).rejects.toThrow();
      expect(entityPoint()).toBeNull();
      await index.applyChanges('t1', batch);
      expect(entityPoint()).toMatchObject({ kind: 'entity', entity_key: 'lisbon', df: 2 });
    } finally {
      await emulator.stop();
    }
  });
});

describe('a retried batch recounts the keys its points lost (emulated Qdrant)', () => {
  const entity = (emulator: QdrantEmulator, key: string) => emulator.collections.get('c')!.points.get(entityPointId('t1', key))?.payload;

  it('a key a new version no longer mentions, when the first attempt wrote the point and failed its recount', async () => {
    await withIndex(async (index, emulator) => {
      await index.applyChanges('t1', [upsert('m1', 'lisbon', 'sarah')]);
      expect(entity(emulator, 'sarah')).toMatchObject({ df: 1 });
      const v2 = [upsert('m1', 'lisbon')];
      emulator.failures.push('POST /collections/{c}/points/count');
      await expect(index.applyChanges('t1', v2)).rejects.toThrow();
      // The point shows version 2 already; what it owes is kept on it.
      expect(emulator.collections.get('c')!.points.get(memoryPointId('t1', 'm1'))!.payload).toMatchObject({
        entities: ['lisbon'],
        stale_entities: ['sarah'],
      });
      await index.applyChanges('t1', v2);
      expect(entity(emulator, 'sarah')).toBeUndefined();
      expect(entity(emulator, 'lisbon')).toMatchObject({ df: 1 });
      expect(emulator.collections.get('c')!.points.get(memoryPointId('t1', 'm1'))!.payload).toMatchObject({ stale_entities: [] });
    });
  });

  it("a removed memory's keys, when the first attempt removed it and failed its recount", async () => {
    await withIndex(async (index, emulator) => {
      await index.applyChanges('t1', [upsert('m1', 'porto'), upsert('m2', 'lisbon')]);
      const removal: IndexChange[] = [{ op: 'remove', memoryId: 'm1', committedVersion: 1 }];
      emulator.failures.push('POST /collections/{c}/points/count');
      await expect(index.applyChanges('t1', removal)).rejects.toThrow();
      await index.applyChanges('t1', removal);
      expect(entity(emulator, 'porto')).toBeUndefined();
      expect(entity(emulator, 'lisbon')).toMatchObject({ df: 1 });
    });
  });
});

describe('a removal is final (emulated Qdrant)', () => {
  it('a write of the version it left at, or an older one, arriving late does not bring the memory back', async () => {
    const emulator = new QdrantEmulator();
    const url = await emulator.start();
    try {
      const index = await createQdrantSearchIndex({ url, collection: 'c', embedder: { model: 'm', dimension: 4, init: async () => {} } });
      const v = (n: number): IndexChange => ({ op: 'upsert', doc: indexedMemory('m1', 'harbour crane schedule', { committedVersion: n }) });
      await index.applyChanges('t1', [v(2)]);
      await index.applyChanges('t1', [{ op: 'remove', memoryId: 'm1', committedVersion: 2 }]);
      // A drain that lost its lease, or a request that timed out and still landed.
      await index.applyChanges('t1', [v(2)]);
      await index.applyChanges('t1', [v(1)]);
      const found = await index.search('t1', { text: 'crane', vector: null, mode: 'hybrid', limit: 5, filters: { namespaces: null } });
      expect(found.hits).toEqual([]);
      expect(emulator.collections.get('c')!.points.get(memoryPointId('t1', 'm1'))!.payload).toMatchObject({ kind: 'tombstone' });
    } finally {
      await emulator.stop();
    }
  });

  it('a later removal that says less (an older version, or none) never lowers the fence', async () => {
    const emulator = new QdrantEmulator();
    const url = await emulator.start();
    try {
      const index = await createQdrantSearchIndex({ url, collection: 'c', embedder: { model: 'm', dimension: 4, init: async () => {} } });
      const v = (n: number): IndexChange => ({ op: 'upsert', doc: indexedMemory('m1', 'harbour crane schedule', { committedVersion: n }) });
      await index.applyChanges('t1', [v(4)]);
      await index.applyChanges('t1', [{ op: 'remove', memoryId: 'm1', committedVersion: 4 }]);
      // A stale drain's check after its flush, then an earlier release's entry.
      await index.applyChanges('t1', [{ op: 'remove', memoryId: 'm1', committedVersion: 3 }]);
      await index.applyChanges('t1', [{ op: 'remove', memoryId: 'm1' }]);
      expect(emulator.collections.get('c')!.points.get(memoryPointId('t1', 'm1'))!.payload).toMatchObject({
        kind: 'tombstone',
        committed_version: 4,
      });
      await index.applyChanges('t1', [v(4)]);
      const found = await index.search('t1', { text: 'crane', vector: null, mode: 'hybrid', limit: 5, filters: { namespaces: null } });
      expect(found.hits).toEqual([]);
    } finally {
      await emulator.stop();
    }
  });

  it("tombstones are purged a day after their removal, at a later removal of the tenant's", async () => {
    const emulator = new QdrantEmulator();
    const url = await emulator.start();
    try {
      await createQdrantSearchIndex({ url, collection: 'c', embedder: { model: 'm', dimension: 4, init: async () => {} } });
      let now = Date.UTC(2030, 0, 1);
      const writer = new QdrantIndexWriter(new QdrantClient({ url, checkCompatibility: false }), 'c', { ...settings, now: () => now });
      const point = (id: string) => emulator.collections.get('c')!.points.get(memoryPointId('t1', id));
      await writer.apply('t1', [{ op: 'remove', memoryId: 'old' }]);
      now += 23 * 3600_000;
      await writer.apply('t1', [{ op: 'remove', memoryId: 'recent' }]);
      expect(point('old')).toBeDefined();
      now += 2 * 3600_000;
      await writer.apply('t1', [{ op: 'remove', memoryId: 'last' }]);
      expect(point('old')).toBeUndefined();
      expect(point('recent')).toBeDefined();
      expect(point('last')).toBeDefined();
    } finally {
      await emulator.stop();
    }
  });
});

describe('a stale write (emulated Qdrant)', () => {
  const version = (id: string, committedVersion: number | undefined, text: string, ...keys: string[]): IndexChange => ({
    op: 'upsert',
    doc: indexedMemory(id, text, { entities: ent(...keys), committedVersion }),
  });
  const stored = (emulator: QdrantEmulator, id: string) => emulator.collections.get('c')!.points.get(memoryPointId('t1', id))!.payload;
  const found = async (index: Awaited<ReturnType<typeof createQdrantSearchIndex>>, text: string) =>
    (await index.search('t1', { text, vector: null, mode: 'hybrid', limit: 5, filters: { namespaces: null } })).hits.map((h) => h.memoryId);

  it('applying version 1 after version 2 leaves version 2 indexed, with its entity statistics', async () => {
    await withIndex(async (index, emulator) => {
      await index.applyChanges('t1', [version('m1', 2, 'harbour crane schedule', 'porto')]);
      // A drain that outlived its lease: its request for version 1 lands after another process wrote version 2.
      await index.applyChanges('t1', [version('m1', 1, 'lighthouse keeper logbook', 'lisbon'), version('m2', 1, 'ferry timetable')]);
      expect(stored(emulator, 'm1')).toMatchObject({ committed_version: 2, entities: ['porto'] });
      expect(await found(index, 'crane')).toContain('m1');
      expect(await found(index, 'lighthouse')).not.toContain('m1');
      // The rest of the batch was written; the statistics are those of what is stored.
      expect(await found(index, 'ferry')).toContain('m2');
      expect(emulator.collections.get('c')!.points.get(entityPointId('t1', 'lisbon'))).toBeUndefined();
      expect(emulator.collections.get('c')!.points.get(entityPointId('t1', 'porto'))!.payload).toMatchObject({ df: 1 });
      // The same version again (a retry, a status change) and a later one still replace it.
      await index.applyChanges('t1', [version('m1', 2, 'harbour crane timetable', 'porto')]);
      expect(await found(index, 'timetable')).toEqual(expect.arrayContaining(['m1', 'm2']));
      await index.applyChanges('t1', [version('m1', 3, 'lighthouse keeper logbook', 'lisbon')]);
      expect(stored(emulator, 'm1')).toMatchObject({ committed_version: 3, entities: ['lisbon'] });
    });
  });

  it('replaces a point written before versions were stored, whatever the version', async () => {
    await withIndex(async (index, emulator) => {
      await index.applyChanges('t1', [version('m1', undefined, 'harbour crane schedule')]);
      expect(stored(emulator, 'm1')).not.toHaveProperty('committed_version');
      await index.applyChanges('t1', [version('m1', 1, 'lighthouse keeper logbook')]);
      expect(stored(emulator, 'm1')).toMatchObject({ committed_version: 1 });
      expect(await found(index, 'lighthouse')).toContain('m1');
    });
  });
});
