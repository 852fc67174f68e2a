import type { Db, MongoClient } from 'mongodb';
import type { IdempotencyStore } from '../../server/ports/idempotency.js';
import type { IndexOutbox } from '../../server/ports/index-outbox.js';
import type { KnowledgeObjectStore, KnowledgeStructureStore } from '../../server/ports/knowledge.js';
import type { KnowledgeSettingsStore } from '../../server/ports/knowledge-settings.js';
import type { MemoryStore } from '../../server/ports/memories.js';
import type { UsageStore } from '../../server/ports/usage.js';
import type { WriteQueue } from '../../server/ports/write-queue.js';
import { createMongoIdempotencyStore } from './idempotency-store.js';
import { openKnowledgeCollections } from './knowledge-collections.js';
import { createMongoKnowledgeObjectStore } from './knowledge-object-store.js';
import { createMongoKnowledgeSettingsStore } from './knowledge-settings-store.js';
import { createMongoKnowledgeStructureStore } from './knowledge-structure-store.js';
import { openIndexOutbox, type IndexOutboxOptions, type MongoIndexSink } from './index-outbox.js';
import { openMemoryCollections } from './memory-collections.js';
import { createMongoMemoryStore } from './memory-store.js';
import { createMongoUsageStore } from './usage-store.js';
import { createMongoWriteQueue } from './write-queue.js';

export type { IndexOutboxOptions, MongoIndexSink } from './index-outbox.js';

export interface MongoMemoryPorts {
  memories: MemoryStore;
  writeQueue: WriteQueue;
  usage: UsageStore;
  idempotency: IdempotencyStore;
  indexOutbox: IndexOutbox;
  knowledgeStructures: KnowledgeStructureStore;
  knowledgeObjects: KnowledgeObjectStore;
  knowledgeSettings: KnowledgeSettingsStore;
}

/**
 * The memory aggregate's ports on MongoDB, over one set of collections (`memory-collections.ts`), and
 * the Knowledge API's stores, whose objects count toward the same storage total and so share its
 * transaction helper and `usage_totals`.
 */
export async function createMongoMemoryPorts(
  client: MongoClient,
  db: Db,
  index: MongoIndexSink,
  outboxOptions: IndexOutboxOptions = {},
): Promise<MongoMemoryPorts> {
  const collections = await openMemoryCollections(client, db);
  const indexOutbox = await openIndexOutbox(db, collections, index, outboxOptions);
  const knowledge = await openKnowledgeCollections(db);
  return {
    memories: createMongoMemoryStore(collections, indexOutbox),
    writeQueue: createMongoWriteQueue(collections),
    usage: createMongoUsageStore(collections),
    idempotency: createMongoIdempotencyStore(collections),
    indexOutbox,
    knowledgeStructures: createMongoKnowledgeStructureStore(knowledge, collections),
    knowledgeObjects: createMongoKnowledgeObjectStore(knowledge, collections),
    knowledgeSettings: createMongoKnowledgeSettingsStore(knowledge),
  };
}
