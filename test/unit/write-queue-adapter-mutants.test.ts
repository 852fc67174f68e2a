import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedWriteQueue } from '../../adapters/embedded/write-queue.js';
import type { EnqueueRequest, WriteQuota, WriteQueue } from '../../server/ports/write-queue.js';
import { memorySizeBytes } from '../../server/storage-rules/write-acceptance.js';

// The embedded queue commits the writes that arrive together in ONE transaction and checks each against
// the stored counters plus what the group added so far. Mutation testing found that tally unguarded
// (docs/mutation-testing.md): subtracting instead of adding it passed every test, letting two writes
// of one group both fit a quota with room for one. Both writes here are enqueued in the same tick, so
// they share a group.

const PERIOD = '2030-01';
const UNLIMITED: WriteQuota = { period: PERIOD, writes: null, storageBytes: null, memories: null };
const content = (text: string) => ({
  title: '',
  content: text,
  tags: [],
  type: 'episodic' as const,
  agentId: null,
  metadata: {},
  writerSensitivity: null,
});
const create = (text: string, quota: WriteQuota): EnqueueRequest => ({
  kind: 'create',
  memoryId: randomUUID(),
  namespace: 'default',
  content: content(text),
  allowedNamespaces: null,
  idempotency: null,
  quota,
  acceptedAt: '2030-01-01T00:00:00.000Z',
});

let dir: string;
let db: EmbeddedDatabase;
let queue: WriteQueue;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tm-queue-tally-'));
  db = openEmbeddedDatabase(dir);
  queue = createEmbeddedWriteQueue(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const writesCounted = (tenant: string) =>
  (db.prepare('SELECT writes FROM usage_periods WHERE tenant_id = ? AND period = ?').get([tenant, PERIOD]) as { writes: number }).writes;
const totals = (tenant: string) => {
  const row = db.prepare('SELECT memory_count, storage_bytes FROM usage_totals WHERE tenant_id = ?').get([tenant]) as {
    memory_count: number;
    storage_bytes: number;
  };
  return { memory_count: row.memory_count, storage_bytes: row.storage_bytes };
};

/** Two creates enqueued in one tick: they share one group commit. */
const twoInOneGroup = (tenant: string, quota: WriteQuota) =>
  Promise.all([queue.enqueue(tenant, create('first of the group', quota)), queue.enqueue(tenant, create('second of the group', quota))]);

describe('the embedded write queue counts the writes of one group commit against the quota', () => {
  it('a write quota with room for one more accepts one of two writes committed together', async () => {
    const tenant = randomUUID();
    const quota = { ...UNLIMITED, writes: 2 };
    expect((await queue.enqueue(tenant, create('stored before', quota))).kind).toBe('accepted');

    const results = await twoInOneGroup(tenant, quota);
    expect(results.map((r) => r.kind)).toEqual(['accepted', 'quota_exceeded']);
    expect(results[1]).toEqual({ kind: 'quota_exceeded', limit: 'writes' });
    expect(writesCounted(tenant)).toBe(2);
  });

  it('on a fresh tenant, a write quota of one accepts exactly one of two writes committed together', async () => {
    const tenant = randomUUID();
    const results = await twoInOneGroup(tenant, { ...UNLIMITED, writes: 1 });
    expect(results.map((r) => r.kind)).toEqual(['accepted', 'quota_exceeded']);
    expect(writesCounted(tenant)).toBe(1);
  });

  it('a storage quota with room for one more memory accepts one of two committed together', async () => {
    const tenant = randomUUID();
    const size = memorySizeBytes(content('first of the group'));
    const before = memorySizeBytes(content('stored before'));
    const quota = { ...UNLIMITED, storageBytes: before + size + 1 };
    expect((await queue.enqueue(tenant, create('stored before', quota))).kind).toBe('accepted');

    const results = await twoInOneGroup(tenant, quota);
    expect(results[0]?.kind).toBe('accepted');
    expect(results[1]).toEqual({ kind: 'quota_exceeded', limit: 'storage' });
    expect(totals(tenant)).toEqual({ memory_count: 2, storage_bytes: before + size });
  });

  it('a memory quota with room for one more accepts one of two committed together', async () => {
    const tenant = randomUUID();
    const quota = { ...UNLIMITED, memories: 2 };
    expect((await queue.enqueue(tenant, create('stored before', quota))).kind).toBe('accepted');

    const results = await twoInOneGroup(tenant, quota);
    expect(results[1]).toEqual({ kind: 'quota_exceeded', limit: 'memories' });
    expect(totals(tenant).memory_count).toBe(2);
  });
});
