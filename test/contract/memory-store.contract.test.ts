import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'vitest';
import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedIdempotencyStore } from '../../adapters/embedded/idempotency-store.js';
import { createEmbeddedMemoryStore } from '../../adapters/embedded/memory-store.js';
import { deleteIndexRows, writeIndexRows } from '../../adapters/embedded/search/rows.js';
import { createEmbeddedUsageStore } from '../../adapters/embedded/usage-store.js';
import { createEmbeddedWriteQueue } from '../../adapters/embedded/write-queue.js';
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
      return (db.prepare('SELECT memory_id FROM search_docs WHERE tenant_id = ? ORDER BY memory_id').all([tenantId]) as { memory_id: string }[]).map((r) => r.memory_id);
    },
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// The server profile's adapters run the same suite when a MongoDB server is reachable.
describe.skipIf(!!process.env.MONGODB_URL)('memory store contract: mongodb', () => {
  it.skip('skipped: set MONGODB_URL to run the memory store contract against MongoDB', () => {});
});
