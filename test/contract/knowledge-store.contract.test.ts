import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe, it } from 'vitest';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedKnowledgeObjectStore } from '../../adapters/embedded/knowledge-object-store.js';
import { createEmbeddedKnowledgeSettingsStore } from '../../adapters/embedded/knowledge-settings-store.js';
import { createEmbeddedKnowledgeStructureStore } from '../../adapters/embedded/knowledge-structure-store.js';
import { createEmbeddedUsageStore } from '../../adapters/embedded/usage-store.js';
import { createMongoMemoryPorts } from '../../adapters/mongo/memory-ports.js';
import { describeKnowledgeStoreContract, type KnowledgeStoresFixture } from './knowledge-store.contract.js';
import { describeKnowledgeTypeCountsContract } from './knowledge-type-counts.contract.js';

const PERIOD = '2031-03';

async function embedded(): Promise<KnowledgeStoresFixture> {
  const db = openInMemoryDatabase();
  const usage = createEmbeddedUsageStore(db);
  return {
    structures: createEmbeddedKnowledgeStructureStore(db),
    objects: createEmbeddedKnowledgeObjectStore(db),
    settings: createEmbeddedKnowledgeSettingsStore(db),
    storedBytes: async (tenantId) => (await usage.snapshot(tenantId, PERIOD)).storageBytes,
    async close() {
      db.close();
    },
  };
}
describeKnowledgeStoreContract('embedded (libsql)', embedded);
describeKnowledgeTypeCountsContract('embedded (libsql)', embedded);

// The server profile's adapters run the same suite when a MongoDB server (a replica set: the adapters
// use transactions) is reachable, in a database of their own.
const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  const mongo = async (): Promise<KnowledgeStoresFixture> => {
    const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
    await client.connect();
    const db = client.db(`tm_contract_${randomUUID().replace(/-/g, '')}`);
    const ports = await createMongoMemoryPorts(client, db, null);
    return {
      structures: ports.knowledgeStructures,
      objects: ports.knowledgeObjects,
      settings: ports.knowledgeSettings,
      storedBytes: async (tenantId) => (await ports.usage.snapshot(tenantId, PERIOD)).storageBytes,
      async close() {
        await db.dropDatabase();
        await client.close();
      },
    };
  };
  describeKnowledgeStoreContract('mongodb', mongo);
  describeKnowledgeTypeCountsContract('mongodb', mongo);
} else {
  describe('knowledge store contract: mongodb', () => {
    it.skip('skipped: set MONGODB_URL (a replica set) to run the knowledge store contract against MongoDB', () => {});
  });
}
