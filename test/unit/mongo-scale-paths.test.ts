import type { Db, MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { openIndexOutbox } from '../../adapters/mongo/index-outbox.js';
import { openMemoryCollections } from '../../adapters/mongo/memory-collections.js';
import { createMongoMemoryStore } from '../../adapters/mongo/memory-store.js';
import { createMongoWriteQueue } from '../../adapters/mongo/write-queue.js';
import type { MemoryOrderKey, MemoryRecord } from '../../server/ports/memories.js';
import type { IndexChange } from '../../server/ports/search-index.js';
import { reindexAll } from '../../server/services/search/reindex.js';
import { HashingEmbedder } from '../../adapters/embeddings/hashing.js';
import { FakeDb, type Call } from '../support/fake-mongo.js';

/**
 * The server profile's paths that must stay cheap at a million memories, checked on the requests they
 * send (a recording stand-in for MongoDB; the contract suite runs them on a real server): each must be
 * served by one index range or one key per tenant, never a scan or an ever-growing `skip`.
 */

async function open() {
  const db = new FakeDb();
  const c = await openMemoryCollections({} as MongoClient, db as unknown as Db);
  return { db, c, outbox: () => openIndexOutbox(db as unknown as Db, c, null) };
}

/** The key of the index named `name`, as the adapters declared it at start-up. */
function indexKey(db: FakeDb, name: string): Record<string, number> {
  for (const call of db.calls.filter((x) => x.method === 'createIndexes')) {
    const spec = (call.args[0] as { name: string; key: Record<string, number> }[]).find((s) => s.name === name);
    if (spec) return spec.key;
  }
  throw new Error(`no index ${name}`);
}

const lastCall = (db: FakeDb, collection: string, method: string): Call =>
  db.calls.filter((c) => c.collection === collection && c.method === method).at(-1)!;

describe('tenants with queued writes', () => {
  it('are read one index key per tenant: sorted as the (tenantId, seq) index and grouped by its prefix with $first only', async () => {
    const { db, c } = await open();
    const writes = db.collection('memory_writes');
    const at = (s: number) => new Date(Date.UTC(2030, 0, 1) + s * 1000).toISOString();
    for (const [tenantId, seq, accepted] of [
      ['b', 1, 5],
      ['c', 1, 1],
      ['a', 1, 3],
      ['c', 2, 2],
      ['a', 2, 9],
    ] as const)
      writes.docs.set(`${tenantId}${seq}`, { _id: `${tenantId}${seq}`, seq, tenantId, acceptedAt: at(accepted) });
    // Oldest first: by when each tenant's first queued write was accepted.
    expect(await createMongoWriteQueue(c).tenantsWithPending(2)).toEqual(['c', 'a']);
    const pipeline = lastCall(db, 'memory_writes', 'aggregate').args[0] as Record<string, any>[];
    // MongoDB answers a $sort on an index's key followed by a $group on its first field with only
    // $first accumulators from the index (DISTINCT_SCAN); a $group alone reads every queued write.
    expect(pipeline[0]).toEqual({ $sort: indexKey(db, 'memory_writes_tenant_position') });
    expect(Object.keys(pipeline[0]!.$sort)[0]).toBe('tenantId');
    expect(pipeline[1]!.$group._id).toBe('$tenantId');
    for (const [name, acc] of Object.entries(pipeline[1]!.$group))
      if (name !== '_id') expect(Object.keys(acc as object)).toEqual(['$first']);
    expect(pipeline.slice(2)).toEqual([{ $sort: { first: 1, _id: 1 } }, { $limit: 2 }]);
  });
});

describe('tenants with pending index work', () => {
  it('are a grouped scan, cut at the limit, of the outbox index whose first field is the tenant (never one distinct reply)', async () => {
    const { db, outbox } = await open();
    await (await outbox()).tenantsWithPending(10);
    const [pipeline] = lastCall(db, 'memory_index_outbox', 'aggregate').args as [Record<string, unknown>[]];
    // The index's whole key, then a $group on its first field with $first only (DISTINCT_SCAN).
    expect(pipeline[0]).toEqual({ $sort: indexKey(db, 'memory_index_outbox_tenant_at') });
    expect(pipeline[1]).toEqual({ $group: { _id: '$tenantId', at: { $first: '$at' } } });
    expect(pipeline.at(-1)).toEqual({ $limit: 10 });
    expect(db.calls.some((x) => x.collection === 'memory_index_outbox' && x.method === 'distinct')).toBe(false);
    expect(Object.keys(indexKey(db, 'memory_index_outbox_tenant_at'))).toEqual(['tenantId', 'at', '_id']);
  });
});

describe('a deleted memory', () => {
  it('leaves the index with the version it was deleted at, so that no earlier write of it can come back', async () => {
    const { db, c, outbox } = await open();
    const store = createMongoMemoryStore({ ...c, inTransaction: db.inTransaction }, await outbox());
    const memories = db.collection('memories');
    memories.docs.set('m1', { _id: 'm1', tenantId: 't1', committedVersion: 3, headVersion: 3, mergedInto: null, status: 'active' });
    memories.docs.set('m2', { _id: 'm2', tenantId: 't1', committedVersion: 2, headVersion: 2, mergedInto: 'm1', status: 'archived' });
    expect(await store.delete('t1', 'm1')).toBe(true);
    const entries = [...db.collection('memory_index_outbox').docs.values()] as { memoryId: string; op: string; version: number }[];
    expect(entries.map((e) => [e.memoryId, e.op, e.version]).sort()).toEqual([
      ['m1', 'remove', 3],
      ['m2', 'remove', 2],
    ]);
  });
});

describe('reindex', () => {
  it("pages a tenant's memories by keyset on the memories index, newest first, never by skip", async () => {
    const { db, c, outbox } = await open();
    const store = createMongoMemoryStore(c, await outbox());
    await store.listAfter('t1', null, 64);
    await store.listAfter('t1', { createdAt: '2030-01-01T00:00:00.000Z', id: 'm9' }, 64);
    const [first, next] = db.calls.filter((x) => x.collection === 'memories' && x.method === 'find').slice(-2);
    const key = indexKey(db, 'memories_tenant_created');
    expect(Object.keys(key)[0]).toBe('tenantId');
    const { tenantId: _t, ...order } = key;
    expect(first!.args).toEqual([{ tenantId: 't1', mergedInto: null }, {}, { sort: order }, { limit: 64 }]);
    expect(next!.args[0]).toEqual({
      tenantId: 't1',
      mergedInto: null,
      $or: [{ createdAt: { $lt: '2030-01-01T00:00:00.000Z' } }, { createdAt: '2030-01-01T00:00:00.000Z', _id: { $lt: 'm9' } }],
    });
    expect(db.calls.some((x) => x.method === 'skip')).toBe(false);
  });

  it('walks every memory once in keyset pages and writes each page to the index in one request', async () => {
    const embedder = new HashingEmbedder(16);
    const records = Array.from({ length: 150 }, (_, i) => record(`m${String(i).padStart(3, '0')}`, i)).sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    const pages: (MemoryOrderKey | null)[] = [];
    const listed: { limit: number; offset: number }[] = [];
    const writes: IndexChange[][] = [];
    const result = await reindexAll({
      tenants: { listIds: async (after) => (after === null ? ['t1'] : []) },
      memories: {
        list: async (_t, q) => (listed.push({ limit: q.limit, offset: q.offset }), { items: [], total: records.length }),
        listAfter: async (_t, after, limit) => {
          pages.push(after);
          const start = after ? records.findIndex((r) => r.id === after.id) + 1 : 0;
          return records.slice(start, start + limit);
        },
        getVersion: async () => null,
      },
      index: { applyChanges: async (_t, changes) => void writes.push([...changes]) },
      embedder,
      extractEntities: () => [],
      batchSize: 64,
    });
    expect(result).toEqual({ tenants: 1, memories: 150 });
    expect(pages).toEqual([
      null,
      { createdAt: records[63]!.createdAt, id: records[63]!.id },
      { createdAt: records[127]!.createdAt, id: records[127]!.id },
    ]);
    expect(listed).toEqual([{ limit: 1, offset: 0 }]); // the total only
    expect(writes.map((w) => w.length)).toEqual([64, 64, 22]);
    const written = writes.flat().map((w) => (w.op === 'upsert' ? w.doc.memoryId : ''));
    expect(new Set(written).size).toBe(150);
  });
});

function record(id: string, i: number): MemoryRecord {
  return {
    id,
    tenantId: 't1',
    namespace: 'default',
    agentId: null,
    type: 'episodic',
    title: '',
    content: `memory ${i}`,
    tags: [],
    metadata: {},
    writerSensitivity: null,
    sensitivity: 'low',
    sensitivityReasons: [],
    status: 'active',
    version: 1,
    committedVersion: 1,
    pendingCount: 0,
    sizeBytes: 10,
    // Several memories share a creation time: the id breaks the tie.
    createdAt: new Date(Date.UTC(2030, 0, 1) + Math.floor(i / 3) * 1000).toISOString(),
    updatedAt: '2030-01-01T00:00:00.000Z',
  } as unknown as MemoryRecord;
}
