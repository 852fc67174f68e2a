import type { Db, MongoClient } from 'mongodb';
import type { IdempotencyStore } from '../../server/ports/idempotency.js';
import type { MemoryStore } from '../../server/ports/memories.js';
import type { UsageStore } from '../../server/ports/usage.js';
import type { WriteQueue } from '../../server/ports/write-queue.js';
import { createMongoIdempotencyStore } from './idempotency-store.js';
import { createIndexOutbox, type MongoIndexSink } from './index-outbox.js';
import { openMemoryCollections } from './memory-collections.js';
import { createMongoMemoryStore } from './memory-store.js';
import { createMongoUsageStore } from './usage-store.js';
import { createMongoWriteQueue } from './write-queue.js';

export type { MongoIndexSink } from './index-outbox.js';

export interface MongoMemoryPorts {
  memories: MemoryStore;
  writeQueue: WriteQueue;
  usage: UsageStore;
  idempotency: IdempotencyStore;
}

/** The memory aggregate's four ports on MongoDB, over one set of collections (`memory-collections.ts`). */
export async function createMongoMemoryPorts(client: MongoClient, db: Db, index: MongoIndexSink): Promise<MongoMemoryPorts> {
  const collections = await openMemoryCollections(client, db);
  return {
    memories: createMongoMemoryStore(collections, createIndexOutbox(collections, index)),
    writeQueue: createMongoWriteQueue(collections),
    usage: createMongoUsageStore(collections),
    idempotency: createMongoIdempotencyStore(collections),
  };
}
