import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { embeddedDatabaseFile, openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { ThreadedWriteQueue } from '../../adapters/embedded/threaded-write-queue.js';
import type { EnqueueRequest, WriteQuota } from '../../server/ports/write-queue.js';

const QUOTA: WriteQuota = { period: '2030-01', writes: null, storageBytes: null, memories: null };
const AT = '2030-01-15T10:00:00.000Z';
const content = (text: string) => ({ title: '', content: text, tags: [], type: 'semantic' as const, agentId: null, metadata: {}, writerSensitivity: null });

function create(memoryId: string, text: string): EnqueueRequest {
  return { kind: 'create', memoryId, namespace: 'default', content: content(text), allowedNamespaces: null, idempotency: null, quota: QUOTA, acceptedAt: AT };
}
function update(memoryId: string, text: string): EnqueueRequest {
  return { kind: 'update', memoryId, namespace: null, ifMatch: null, content: content(text), allowedNamespaces: null, idempotency: null, quota: QUOTA, acceptedAt: AT };
}

// The memory-store contract runs whole against this queue too; these are what the hand-over adds.
describe('ThreadedWriteQueue (writes committed on their own thread and connection)', () => {
  let dir: string;
  let db: EmbeddedDatabase;
  let queue: ThreadedWriteQueue;
  const tenant = 'tenant-a';
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'threaded-queue-'));
    db = openEmbeddedDatabase(dir);
    queue = new ThreadedWriteQueue(db, embeddedDatabaseFile(dir));
  });
  afterEach(async () => {
    await queue.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies writes to one memory in arrival order across batches, and the caller reads them at once', async () => {
    const id = randomUUID();
    const first = await queue.enqueue(tenant, create(id, 'v1'));
    expect(first).toMatchObject({ kind: 'accepted', receipt: { version: 1 } });
    // Sent from different turns of the event loop, so they cross over in several batches.
    const pending: Promise<unknown>[] = [];
    for (let i = 2; i <= 60; i++) {
      pending.push(queue.enqueue(tenant, update(id, `v${i}`)));
      if (i % 7 === 0) await new Promise((r) => setImmediate(r));
    }
    const receipts = (await Promise.all(pending)) as { kind: string; receipt: { version: number } }[];
    expect(receipts.map((r) => r.receipt.version)).toEqual(Array.from({ length: 59 }, (_, i) => i + 2));
    // Read on the caller's connection: committed by the thread's, visible here without waiting.
    const row = db.prepare('SELECT content, head_version, pending_count FROM memories WHERE id = ?').get([id]) as Record<string, unknown>;
    expect(row).toMatchObject({ content: 'v60', head_version: 60, pending_count: 60 });
    expect((await queue.peek(tenant, 100)).map((w) => w.content.content)).toEqual(Array.from({ length: 60 }, (_, i) => `v${i + 1}`));
  });

  it('rejects a failing write with the database error (message and code), and only that one', async () => {
    const id = randomUUID();
    await queue.enqueue(tenant, create(id, 'original'));
    const results = await Promise.allSettled([
      queue.enqueue(tenant, create(randomUUID(), 'before')),
      queue.enqueue(tenant, create(id, 'same id again')),
      queue.enqueue(tenant, create(randomUUID(), 'after')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const error = (results[1] as PromiseRejectedResult).reason as Error & { code?: string };
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/UNIQUE constraint failed/);
    expect(error.code).toMatch(/^SQLITE_CONSTRAINT/);
    expect(await queue.pendingCount(tenant)).toBe(3);
  });

  it('answers every write handed over before it closes, and refuses any after', async () => {
    const writes = Array.from({ length: 300 }, (_, i) => queue.enqueue(tenant, create(randomUUID(), `w${i}`)));
    await queue.close();
    const results = await Promise.all(writes);
    expect(results.every((r) => r.kind === 'accepted')).toBe(true);
    expect((db.prepare('SELECT COUNT(*) AS n FROM memory_writes WHERE tenant_id = ?').get([tenant]) as { n: number }).n).toBe(300);
    await expect(queue.enqueue(tenant, create(randomUUID(), 'too late'))).rejects.toThrow(/closed/);
    expect((db.prepare('SELECT COUNT(*) AS n FROM memory_writes WHERE tenant_id = ?').get([tenant]) as { n: number }).n).toBe(300);
  });
});
