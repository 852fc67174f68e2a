import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KNOWLEDGE_COLLECTION_NAMES } from '../../adapters/mongo/knowledge-collections.js';
import { MEMORY_COLLECTION_NAMES } from '../../adapters/mongo/memory-collections.js';
import { createMongoMemoryPorts } from '../../adapters/mongo/memory-ports.js';
import type { EnqueueRequest } from '../../server/ports/write-queue.js';

/**
 * What only the MongoDB layout has (the shared behaviour is `memory-store.contract.ts`): collections
 * made at start-up, the per-tenant queue numbering, and a queue written by the global-counter layout
 * brought over. Runs where MONGODB_URL points at a replica set; each test gets its own database.
 */
const mongoUrl = process.env.MONGODB_URL;

const create = (memoryId: string, text: string): EnqueueRequest => ({
  kind: 'create',
  memoryId,
  namespace: 'default',
  content: { title: '', content: text, tags: [], type: 'episodic', agentId: null, metadata: {}, writerSensitivity: null },
  allowedNamespaces: null,
  idempotency: null,
  quota: { period: '2030-01', writes: null, storageBytes: null, memories: null },
  acceptedAt: '2030-01-15T10:00:00.000Z',
});

if (mongoUrl) {
  describe('MongoDB memory layout', () => {
    let client: MongoClient;
    let db: Db;
    beforeEach(async () => {
      client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
      await client.connect();
      db = client.db(`tm_layout_${randomUUID().replace(/-/g, '')}`);
    });
    afterEach(async () => {
      await db.dropDatabase();
      await client.close();
    });

    it('creates every collection at start-up, so no transaction creates one', async () => {
      await createMongoMemoryPorts(client, db, null);
      const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
      expect(names).toEqual(
        expect.arrayContaining([...Object.values(MEMORY_COLLECTION_NAMES), ...Object.values(KNOWLEDGE_COLLECTION_NAMES)]),
      );
      // A second start (another instance) finds them and changes nothing.
      await expect(createMongoMemoryPorts(client, db, null)).resolves.toBeDefined();
    });

    it("numbers each tenant's queue from its own counter", async () => {
      const ports = await createMongoMemoryPorts(client, db, null);
      const [a, b] = [randomUUID(), randomUUID()];
      await Promise.all([
        ports.writeQueue.enqueue(a, create(randomUUID(), 'a1')),
        ports.writeQueue.enqueue(b, create(randomUUID(), 'b1')),
        ports.writeQueue.enqueue(b, create(randomUUID(), 'b2')),
      ]);
      expect((await ports.writeQueue.peek(a, 10)).map((w) => w.id)).toEqual([1]);
      expect((await ports.writeQueue.peek(b, 10)).map((w) => w.id)).toEqual([1, 2]);
      expect(await db.collection('memory_counters').countDocuments({ _id: 'memory_writes' as never })).toBe(0);
    });

    it('queues a tenant’s new writes after those the global counter numbered, and retires that layout', async () => {
      const tenant = randomUUID();
      const old = create(randomUUID(), 'accepted by the earlier version');
      await db.collection('memory_counters').insertOne({ _id: 'memory_writes' as never, seq: 500 });
      const writes = db.collection('memory_writes');
      await writes.createIndexes([
        { key: { tenantId: 1, seq: 1 }, name: 'memory_writes_tenant_seq' },
        { key: { seq: 1 }, name: 'memory_writes_seq' },
      ]);
      await writes.insertOne({
        _id: `${old.memoryId}:1` as never,
        seq: 500,
        tenantId: tenant,
        memoryId: old.memoryId,
        namespace: 'default',
        version: 1,
        kind: 'create',
        content: (old as Extract<EnqueueRequest, { kind: 'create' }>).content,
        rolledBackTo: null,
        acceptedAt: old.acceptedAt,
      });

      const ports = await createMongoMemoryPorts(client, db, null);
      const accepted = await ports.writeQueue.enqueue(tenant, create(randomUUID(), 'accepted by this version'));
      expect(accepted.kind).toBe('accepted');
      const queued = await ports.writeQueue.peek(tenant, 10);
      expect(queued.map((w) => w.content.content)).toEqual(['accepted by the earlier version', 'accepted by this version']);
      expect(queued.map((w) => w.id)).toEqual([500, 501]);
      expect(await db.collection('memory_counters').findOne({ _id: 'memory_writes' as never })).toBeNull();
      const indexNames = (await writes.indexes()).map((i) => i.name);
      expect(indexNames).toContain('memory_writes_tenant_position');
      expect(indexNames).not.toContain('memory_writes_seq');
      expect(indexNames).not.toContain('memory_writes_tenant_seq');
    });
  });
} else {
  describe('MongoDB memory layout', () => {
    it.skip('skipped: set MONGODB_URL (a replica set) to check the MongoDB memory layout', () => {});
  });
}
