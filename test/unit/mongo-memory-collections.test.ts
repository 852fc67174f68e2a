import type { Db, MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { MEMORY_COLLECTION_NAMES, openMemoryCollections } from '../../adapters/mongo/memory-collections.js';
import { GLOBAL_WRITE_COUNTER_ID, nextWritePosition } from '../../adapters/mongo/write-counters.js';
import { FakeDb } from '../support/fake-mongo.js';

/**
 * A database stand-in: `existing` collections are there already (`listed` is what listing them shows,
 * all of them unless another instance creates some in between); every call is recorded. `created`:
 * the collections that exist after start-up and did not before.
 */
function recordingDb(existing: string[], listed: string[] = existing) {
  const fake = new FakeDb(existing);
  if (listed !== existing) fake.answer('listCollections', () => listed.map((name) => ({ name })));
  const created = () => fake.collectionNames().filter((name) => !existing.includes(name));
  return { fake, db: fake as unknown as Db, calls: fake.calls, created };
}

const client = {} as MongoClient;

describe('MongoDB memory collections at start-up', () => {
  it('creates every collection of the aggregate before any transaction can', async () => {
    const { db, calls, ...started } = recordingDb(['memories', 'memory_versions']);
    await openMemoryCollections(client, db);
    const created = started.created();
    const all = Object.values(MEMORY_COLLECTION_NAMES);
    expect(new Set([...created, 'memories', 'memory_versions'])).toEqual(new Set(all));
    // Including the three no index creates: the counters, the usage totals and the settings.
    expect(created).toEqual(expect.arrayContaining(['memory_counters', 'usage_totals', 'memory_settings']));
    // Created first: no index build or read runs on a collection that does not exist yet.
    const firstOther = calls.findIndex((c) => c.method !== 'createCollection');
    expect(calls.slice(firstOther).some((c) => c.method === 'createCollection')).toBe(false);
  });

  it('takes a collection another instance created meanwhile as created', async () => {
    const { db, calls } = recordingDb(Object.values(MEMORY_COLLECTION_NAMES), []);
    await expect(openMemoryCollections(client, db)).resolves.toBeDefined();
    expect(calls.filter((c) => c.method === 'createCollection')).toHaveLength(Object.keys(MEMORY_COLLECTION_NAMES).length);
  });

  it('declares a unique queue position per tenant and drops the indexes of the global order', async () => {
    const { fake, db, calls } = recordingDb([]);
    // Declared by the global-order layout; its other retired index was never built here.
    fake.collection('memory_writes').indexes.add('memory_writes_seq');
    await openMemoryCollections(client, db);
    const writeIndexes = calls.find((c) => c.collection === 'memory_writes' && c.method === 'createIndexes')!.args[0];
    expect(writeIndexes).toContainEqual({ key: { tenantId: 1, seq: 1 }, name: 'memory_writes_tenant_position', unique: true });
    expect(writeIndexes.some((i: { key: object }) => JSON.stringify(i.key) === '{"seq":1}')).toBe(false);
    const dropped = calls.filter((c) => c.method === 'dropIndex').map((c) => c.args[0]);
    expect(dropped).toEqual(['memory_writes_seq']);
  });

  it("moves a queue numbered by the global counter: each tenant's counter starts after it, then it is retired", async () => {
    const { fake, db, calls } = recordingDb([]);
    // Queued under the one global counter of the earlier layout, which reached 500.
    fake.collection('memory_counters').docs.set(GLOBAL_WRITE_COUNTER_ID, { _id: GLOBAL_WRITE_COUNTER_ID, seq: 500 });
    for (const [id, tenantId, seq] of [
      ['m1:1', 'tenant-a', 498],
      ['m2:1', 'tenant-b', 499],
      ['m1:2', 'tenant-a', 500],
    ] as const)
      fake.collection('memory_writes').docs.set(id, { _id: id, tenantId, seq });
    await openMemoryCollections(client, db);
    const counterCalls = calls.filter((c) => c.collection === 'memory_counters');
    const bulk = counterCalls.find((c) => c.method === 'bulkWrite')!.args[0];
    expect(bulk).toEqual([
      { updateOne: { filter: { _id: 'writes:tenant-a' }, update: { $max: { seq: 500 } }, upsert: true } },
      { updateOne: { filter: { _id: 'writes:tenant-b' }, update: { $max: { seq: 500 } }, upsert: true } },
    ]);
    // Retired after the raise, and only if no process of the old version moved it meanwhile.
    expect(counterCalls.map((c) => c.method).slice(-2)).toEqual(['bulkWrite', 'updateOne']);
    expect(counterCalls.at(-1)!.args.slice(0, 2)).toEqual([{ _id: GLOBAL_WRITE_COUNTER_ID, seq: 500 }, { $set: { seq: 'retired' } }]);
  });

  it('leaves the global counter retired, so a process of the earlier version fails instead of numbering from 1 again', async () => {
    const { fake, db, calls } = recordingDb([]);
    const counters = fake.collection('memory_counters');
    counters.docs.set(GLOBAL_WRITE_COUNTER_ID, { _id: GLOBAL_WRITE_COUNTER_ID, seq: 500 });
    fake.collection('memory_writes').docs.set('m1:1', { _id: 'm1:1', tenantId: 'tenant-a', seq: 500 });
    await openMemoryCollections(client, db);
    // What the earlier version did for every write: $inc the global counter, upserting it.
    await expect(
      counters.findOneAndUpdate({ _id: GLOBAL_WRITE_COUNTER_ID }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' }),
    ).rejects.toMatchObject({ code: 14 });
    expect(await nextWritePosition(counters as never, 'tenant-a', undefined as never)).toBe(501);
    // Starting again finds the tombstone and moves nothing.
    const before = calls.length;
    await openMemoryCollections(client, db);
    const again = calls.slice(before).filter((c) => c.collection === 'memory_counters' && c.method !== 'createCollection');
    expect(again.map((c) => c.method)).toEqual(['findOne']);
    expect(counters.docs.get(GLOBAL_WRITE_COUNTER_ID)).toEqual({ _id: GLOBAL_WRITE_COUNTER_ID, seq: 'retired' });
  });

  it('has nothing to move on a database of this layout', async () => {
    const { db, calls } = recordingDb([]);
    await openMemoryCollections(client, db);
    const counterCalls = calls.filter((c) => c.collection === 'memory_counters' && c.method !== 'createCollection');
    expect(counterCalls.map((c) => c.method)).toEqual(['findOne']);
  });
});
