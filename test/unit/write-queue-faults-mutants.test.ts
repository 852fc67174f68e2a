import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedWriteQueue } from '../../adapters/embedded/write-queue.js';
import type { EnqueueRequest, WriteQuota } from '../../server/ports/write-queue.js';

// The embedded queue's fault paths, which mutation testing found untested (docs/mutation-testing.md,
// "Write queue"): a statement failing inside a group commit, and another connection holding the write
// lock. The faults are real: a trigger makes SQLite abort one write's insert, and a second connection
// on the same file holds its write transaction open.

const PERIOD = '2030-01';
const quota = (writes: number | null): WriteQuota => ({ period: PERIOD, writes, storageBytes: null, memories: null });
const create = (text: string, q: WriteQuota = quota(null)): EnqueueRequest => ({
  kind: 'create',
  memoryId: randomUUID(),
  namespace: 'default',
  content: { title: '', content: text, tags: [], type: 'episodic', agentId: null, metadata: {}, writerSensitivity: null },
  allowedNamespaces: null,
  idempotency: null,
  quota: q,
  acceptedAt: '2030-01-01T00:00:00.000Z',
});

let dir: string;
let db: EmbeddedDatabase;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tm-queue-faults-'));
  db = openEmbeddedDatabase(dir);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: { message?: string; code?: string }) => ({ ok: false as const, error }),
  );
const queuedContents = (tenant: string) =>
  (db.prepare('SELECT content FROM memory_writes WHERE tenant_id = ? ORDER BY id').all([tenant]) as { content: string }[]).map(
    (r) => (JSON.parse(r.content) as { content: string }).content,
  );
const stored = (tenant: string) =>
  (db.prepare('SELECT content FROM memories WHERE tenant_id = ? ORDER BY content').all([tenant]) as { content: string }[]).map(
    (r) => r.content,
  );
const writesCounted = (tenant: string) =>
  (
    db.prepare('SELECT writes FROM usage_periods WHERE tenant_id = ? AND period = ?').get([tenant, PERIOD]) as
      { writes: number } | undefined
  )?.writes ?? 0;
const totals = (tenant: string) =>
  db.prepare('SELECT memory_count, storage_bytes FROM usage_totals WHERE tenant_id = ?').get([tenant]) as {
    memory_count: number;
    storage_bytes: number;
  };

describe('a statement failing inside a group commit', () => {
  beforeEach(() => {
    db.exec(`CREATE TRIGGER fail_marked_write BEFORE INSERT ON memory_writes WHEN NEW.content GLOB '*FAULT*'
      BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
  });

  it('rejects only its own write: the rest of the group is committed, queued and counted', async () => {
    const queue = createEmbeddedWriteQueue(db);
    const tenant = randomUUID();
    // Enqueued in one tick: one group. A quota with room for exactly the two healthy writes.
    const [first, faulty, last] = await Promise.all(
      ['first healthy write', 'a FAULT in the middle', 'last healthy write'].map((text) =>
        settle(queue.enqueue(tenant, create(text, quota(2)))),
      ),
    );
    expect(first).toMatchObject({ ok: true, value: { kind: 'accepted' } });
    expect(last).toMatchObject({ ok: true, value: { kind: 'accepted' } });
    expect(faulty).toMatchObject({ ok: false, error: { message: expect.stringContaining('injected fault') } });

    expect(queuedContents(tenant)).toEqual(['first healthy write', 'last healthy write']);
    // The failed write left no memory row behind (its savepoint rolled back its insert), and no count.
    expect(stored(tenant)).toEqual(['first healthy write', 'last healthy write']);
    expect(writesCounted(tenant)).toBe(2);
    expect(totals(tenant).memory_count).toBe(2);
  });

  it('keeps working after the fault: the next group commits normally', async () => {
    const queue = createEmbeddedWriteQueue(db);
    const tenant = randomUUID();
    await settle(queue.enqueue(tenant, create('a FAULT alone')));
    expect((await queue.enqueue(tenant, create('after the fault'))).kind).toBe('accepted');
    expect(queuedContents(tenant)).toEqual(['after the fault']);
    expect(db.inTransaction).toBe(false);
  });
});

describe('another connection holding the write lock', () => {
  it('waits for it while it is held for less than the lock timeout', async () => {
    const queue = createEmbeddedWriteQueue(db, { lockTimeoutMs: 60_000 });
    const other = openEmbeddedDatabase(dir);
    try {
      other.exec('BEGIN IMMEDIATE');
      const tenant = randomUUID();
      const write = queue.enqueue(tenant, create('written once the lock is free'));
      // Let the queue find the lock taken and come back for it at least once.
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(queuedContents(tenant)).toEqual([]);
      other.exec('COMMIT');
      expect((await write).kind).toBe('accepted');
      expect(queuedContents(tenant)).toEqual(['written once the lock is free']);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  });

  it('fails the waiting writes with SQLITE_BUSY once the lock was held past the timeout, and recovers', async () => {
    const queue = createEmbeddedWriteQueue(db, { lockTimeoutMs: 50 });
    const other = openEmbeddedDatabase(dir);
    const tenant = randomUUID();
    try {
      other.exec('BEGIN IMMEDIATE');
      const results = await Promise.all([settle(queue.enqueue(tenant, create('one'))), settle(queue.enqueue(tenant, create('two')))]);
      for (const r of results) expect(r).toMatchObject({ ok: false, error: { code: 'SQLITE_BUSY' } });
      other.exec('COMMIT');
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
    expect(queuedContents(tenant)).toEqual([]);
    expect((await queue.enqueue(tenant, create('after the lock was released'))).kind).toBe('accepted');
  });
});
