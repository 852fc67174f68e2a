import type { Collection } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { MEMORY_COLLECTION_NAMES, type MemoryCollections } from '../../adapters/mongo/memory-collections.js';
import { createMongoWriteQueue } from '../../adapters/mongo/write-queue.js';
import type { EnqueueRequest } from '../../server/ports/write-queue.js';
import { FakeDb, writtenDocuments } from '../support/fake-mongo.js';

/**
 * The MongoDB write queue's transaction, recorded against stand-in collections: which documents
 * accepting a write touches. Two transactions that write a common document conflict and one retries,
 * so writes of different tenants must share none.
 */
function recordingCollections(db: FakeDb): MemoryCollections {
  const rec = (field: keyof typeof MEMORY_COLLECTION_NAMES) => db.collection(MEMORY_COLLECTION_NAMES[field]) as unknown as Collection<any>;
  const c: MemoryCollections = {
    memories: rec('memories'),
    versions: rec('versions'),
    writes: rec('writes'),
    counters: rec('counters'),
    outbox: rec('outbox'),
    idem: rec('idem'),
    periods: rec('periods'),
    days: rec('days'),
    totals: rec('totals'),
    settings: rec('settings'),
    inTransaction: db.inTransaction,
    adjustTotals: (tenantId, memoriesDelta, bytes, session) =>
      c.totals.updateOne({ _id: tenantId }, { $inc: { memoryCount: memoriesDelta, storageBytes: bytes } }, { upsert: true, session }),
  };
  return c;
}

const create = (memoryId: string): EnqueueRequest => ({
  kind: 'create',
  memoryId,
  namespace: 'default',
  content: { title: '', content: 'text', tags: [], type: 'episodic', agentId: null, metadata: {}, writerSensitivity: null },
  allowedNamespaces: null,
  idempotency: { key: 'k1', requestHash: 'h', expiresAt: '2030-01-16T00:00:00.000Z' },
  quota: { period: '2030-01', writes: 100, storageBytes: 1_000_000, memories: 100 },
  acceptedAt: '2030-01-15T10:00:00.000Z',
});

describe('MongoDB write queue: per-tenant ordering', () => {
  it('accepts writes of two tenants without writing any document in common', async () => {
    const dbA = new FakeDb();
    const dbB = new FakeDb();
    const callsA = dbA.calls;
    const callsB = dbB.calls;
    expect((await createMongoWriteQueue(recordingCollections(dbA)).enqueue('tenant-a', create('m-a'))).kind).toBe('accepted');
    expect((await createMongoWriteQueue(recordingCollections(dbB)).enqueue('tenant-b', create('m-b'))).kind).toBe('accepted');
    const a = writtenDocuments(callsA);
    const b = new Set(writtenDocuments(callsB));
    expect(a.length).toBeGreaterThan(0);
    expect(a.filter((d) => b.has(d))).toEqual([]);
  });

  it("numbers each tenant's queue on its own, from the tenant's counter document", async () => {
    const db = new FakeDb();
    const calls = db.calls;
    const queue = createMongoWriteQueue(recordingCollections(db));
    for (const [tenant, memory] of [
      ['tenant-a', 'm1'],
      ['tenant-b', 'm2'],
      ['tenant-a', 'm3'],
    ] as const) {
      await queue.enqueue(tenant, { ...create(memory), idempotency: null });
    }
    const queued = calls
      .filter((c) => c.collection === 'memory_writes' && c.method === 'insertOne')
      .map((c) => [c.args[0].tenantId, c.args[0].seq]);
    expect(queued).toEqual([
      ['tenant-a', 1],
      ['tenant-b', 1],
      ['tenant-a', 2],
    ]);
    const counters = calls.filter((c) => c.collection === 'memory_counters');
    expect(counters.map((c) => c.args[0]._id)).toEqual(['writes:tenant-a', 'writes:tenant-b', 'writes:tenant-a']);
    // Inside the enqueue transaction, so a position is taken only by a write that commits.
    expect(counters.every((c) => c.args[2]?.session !== undefined)).toBe(true);
  });
});
