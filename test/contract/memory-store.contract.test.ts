import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { describe, it } from 'vitest';
import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedIdempotencyStore } from '../../adapters/embedded/idempotency-store.js';
import { createEmbeddedMemoryStore } from '../../adapters/embedded/memory-store.js';
import { deleteIndexRows, writeIndexRows } from '../../adapters/embedded/search/rows.js';
import { createEmbeddedUsageStore } from '../../adapters/embedded/usage-store.js';
import { createEmbeddedWriteQueue } from '../../adapters/embedded/write-queue.js';
import { createMongoMemoryPorts } from '../../adapters/mongo/memory-ports.js';
import { netIndexChanges } from '../../server/services/search/index-changes.js';
import { describeMemoryStoreContract } from './memory-store.contract.js';

describeMemoryStoreContract('embedded (libsql)', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'memory-contract-'));
  const db = openEmbeddedDatabase(dir);
  return {
    memories: createEmbeddedMemoryStore(db, {
      upsert: (tenantId, doc) => writeIndexRows(db, tenantId, doc),
      remove: (tenantId, memoryId) => void deleteIndexRows(db, tenantId, memoryId),
    }),
    queue: createEmbeddedWriteQueue(db),
    usage: createEmbeddedUsageStore(db),
    idempotency: createEmbeddedIdempotencyStore(db),
    async indexedIds(tenantId) {
      return (
        db.prepare('SELECT memory_id FROM search_docs WHERE tenant_id = ? ORDER BY memory_id').all([tenantId]) as { memory_id: string }[]
      ).map((r) => r.memory_id);
    },
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// The server profile's adapters run the same suite when a MongoDB server (a replica set: the adapters
// use transactions) is reachable; each test gets its own database.
const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  describeMemoryStoreContract('mongodb', async () => {
    const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    await client.connect();
    const db = client.db(`tm_contract_${randomUUID().replace(/-/g, '')}`);
    const indexed = new Map<string, Set<string>>();
    const of = (t: string) => indexed.get(t) ?? indexed.set(t, new Set()).get(t)!;
    const ports = await createMongoMemoryPorts(client, db, {
      async applyChanges(t, changes) {
        const { upserts, removals } = netIndexChanges(changes);
        for (const doc of upserts) of(t).add(doc.memoryId);
        for (const r of removals) of(t).delete(r.memoryId);
      },
    });
    return {
      memories: ports.memories,
      queue: ports.writeQueue,
      usage: ports.usage,
      idempotency: ports.idempotency,
      indexedIds: async (t) => [...of(t)].sort(),
      async close() {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('memory store contract: mongodb', () => {
    it.skip('skipped: set MONGODB_URL (a replica set) to run the memory store contract against MongoDB', () => {});
  });
}
