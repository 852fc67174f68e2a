import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedWriteQueue } from '../../adapters/embedded/write-queue.js';
import type { EnqueueRequest } from '../../server/ports/write-queue.js';

const create = (text: string): EnqueueRequest => ({
  kind: 'create',
  memoryId: randomUUID(),
  namespace: 'default',
  content: { title: '', content: text, tags: [], type: 'episodic', agentId: null, metadata: {}, writerSensitivity: null },
  allowedNamespaces: null,
  idempotency: null,
  quota: { period: '2030-01', writes: null, storageBytes: null, memories: null },
  acceptedAt: '2030-01-01T00:00:00.000Z',
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let dbs: EmbeddedDatabase[];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tm-queue-lock-'));
  dbs = [];
});
afterEach(() => {
  for (const db of dbs) if (db.inTransaction) db.exec('ROLLBACK');
  for (const db of dbs) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Two connections to one file, as two processes (or the API and an external worker) have. */
function twoConnections() {
  const other = openEmbeddedDatabase(dir);
  const mine = openEmbeddedDatabase(dir);
  dbs.push(other, mine);
  return { other, mine };
}

describe('the embedded write queue while another connection holds the write lock', () => {
  it('keeps the event loop running while it waits, then commits the writes that gathered meanwhile', async () => {
    const { other, mine } = twoConnections();
    const queue = createEmbeddedWriteQueue(mine);
    const tenant = randomUUID();

    other.exec('BEGIN IMMEDIATE'); // e.g. a worker committing a consolidated batch
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const first = queue.enqueue(tenant, create('written while the lock is taken'));
    await sleep(100);
    const second = queue.enqueue(tenant, create('a second write, joining the waiting group'));
    await sleep(100);
    clearInterval(ticker);
    // Sleeping in SQLite's busy handler would have frozen this thread for the whole 200 ms: no ticks.
    expect(ticks).toBeGreaterThanOrEqual(10);
    let settled = false;
    void Promise.allSettled([first, second]).then(() => (settled = true));
    await sleep(10);
    expect(settled).toBe(false);

    other.exec('COMMIT');
    const results = await Promise.all([first, second]);
    expect(results.map((r) => r.kind)).toEqual(['accepted', 'accepted']);
    const rows = mine.prepare('SELECT COUNT(*) AS n FROM memory_writes WHERE tenant_id = ?').get([tenant]) as { n: number };
    expect(rows.n).toBe(2);
  });

  it('fails the waiting writes with SQLITE_BUSY after lockTimeoutMs, as the busy handler would, and accepts new ones once the lock is free', async () => {
    const { other, mine } = twoConnections();
    const queue = createEmbeddedWriteQueue(mine, { lockTimeoutMs: 60 });
    const tenant = randomUUID();

    other.exec('BEGIN IMMEDIATE');
    const refused = queue.enqueue(tenant, create('never committed'));
    await expect(refused).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.exec('COMMIT');

    await expect(queue.enqueue(tenant, create('after the lock was released'))).resolves.toMatchObject({ kind: 'accepted' });
    const rows = mine.prepare('SELECT COUNT(*) AS n FROM memory_writes WHERE tenant_id = ?').get([tenant]) as { n: number };
    expect(rows.n).toBe(1);
  });

  it('leaves the connection waiting for locks as before for every other statement', async () => {
    const { mine } = twoConnections();
    const queue = createEmbeddedWriteQueue(mine);
    await queue.enqueue(randomUUID(), create('one write'));
    expect(mine.pragma('busy_timeout', { simple: true })).toMatchObject({ timeout: 10_000 });
  });
});
