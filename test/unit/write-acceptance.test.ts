import { describe, expect, it } from 'vitest';
import type { MemoryContent } from '../../server/ports/memories.js';
import type { EnqueueRequest, WriteQuota, WriteReceipt } from '../../server/ports/write-queue.js';
import { newMemory } from '../../server/storage-rules/new-memory.js';
import {
  decideWrite,
  memorySizeBytes,
  type MemoryHead,
  type VersionContent,
  type WriteSnapshot,
} from '../../server/storage-rules/write-acceptance.js';

const AT = '2030-01-01T00:00:00.000Z';
const LATER = '2030-01-02T00:00:00.000Z';
const UNLIMITED: WriteQuota = { period: '2030-01', writes: null, storageBytes: null, memories: null };
const content = (text: string, over: Partial<MemoryContent> = {}): MemoryContent => ({
  title: '',
  content: text,
  tags: [],
  type: 'semantic',
  agentId: null,
  metadata: {},
  writerSensitivity: null,
  ...over,
});
const SIZE = (text: string) => memorySizeBytes(content(text));

const create = (over: Partial<Extract<EnqueueRequest, { kind: 'create' }>> = {}): EnqueueRequest => ({
  kind: 'create',
  memoryId: 'm1',
  namespace: 'work',
  content: content('hello'),
  allowedNamespaces: null,
  idempotency: null,
  quota: UNLIMITED,
  acceptedAt: AT,
  ...over,
});
const update = (over: Partial<Extract<EnqueueRequest, { kind: 'update' }>> = {}): EnqueueRequest => ({
  kind: 'update',
  memoryId: 'm1',
  namespace: null,
  ifMatch: null,
  content: content('hello again'),
  allowedNamespaces: null,
  idempotency: null,
  quota: UNLIMITED,
  acceptedAt: AT,
  ...over,
});
const rollback = (over: Partial<Extract<EnqueueRequest, { kind: 'rollback' }>> = {}): EnqueueRequest => ({
  kind: 'rollback',
  memoryId: 'm1',
  targetVersion: 1,
  ifMatch: null,
  allowedNamespaces: null,
  idempotency: null,
  quota: UNLIMITED,
  acceptedAt: AT,
  ...over,
});

const HEAD: MemoryHead = { namespace: 'work', headVersion: 2, pendingCount: 1, sizeBytes: SIZE('hello'), mergedInto: null };
const V1: VersionContent = {
  title: 't',
  content: 'first',
  tags: ['a'],
  type: 'episodic',
  agentId: 'ag',
  metadata: { k: 1 },
  sensitivity: 'low',
};
const FIRST: WriteReceipt = { memoryId: 'm1', kind: 'create', version: 1, pendingCount: 1, rolledBackTo: null };

interface Store {
  seen?: { requestHash: string; expiresAt: string } | null;
  writesUsed?: number;
  totals?: { memoryCount: number; storageBytes: number };
  head?: MemoryHead | null;
  version?: VersionContent | null;
}

/** A snapshot over plain values that records which reads the rule asked for. */
function snapshot(store: Store): WriteSnapshot & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    idempotency: () => (asked.push('idempotency'), store.seen ? { ...store.seen, receipt: () => FIRST } : null),
    writesUsed: () => (asked.push('writesUsed'), store.writesUsed ?? 0),
    totals: () => (asked.push('totals'), store.totals ?? { memoryCount: 0, storageBytes: 0 }),
    head: () => (asked.push('head'), store.head ?? null),
    versionContent: () => (asked.push('versionContent'), store.version ?? null),
  };
}

const claim = { key: 'k', requestHash: 'h1', expiresAt: LATER };

describe('decideWrite answers without writing', () => {
  const table: [string, EnqueueRequest, Store, unknown, string[]][] = [
    [
      'a replay of the same request',
      create({ idempotency: claim }),
      { seen: { requestHash: 'h1', expiresAt: LATER } },
      { kind: 'replayed', receipt: FIRST },
      ['idempotency'],
    ],
    [
      'another request under a seen key',
      create({ idempotency: claim }),
      { seen: { requestHash: 'h2', expiresAt: LATER } },
      { kind: 'idempotency_mismatch' },
      ['idempotency'],
    ],
    [
      'a write past the write quota',
      create({ quota: { ...UNLIMITED, writes: 3 } }),
      { writesUsed: 3 },
      { kind: 'quota_exceeded', limit: 'writes' },
      ['writesUsed'],
    ],
    [
      'a create past the memory quota',
      create({ quota: { ...UNLIMITED, memories: 2 } }),
      { totals: { memoryCount: 2, storageBytes: 0 } },
      { kind: 'quota_exceeded', limit: 'memories' },
      ['totals'],
    ],
    [
      'a create past the storage quota',
      create({ quota: { ...UNLIMITED, storageBytes: SIZE('hello') - 1 } }),
      {},
      { kind: 'quota_exceeded', limit: 'storage' },
      ['totals'],
    ],
    ['an update of a missing memory', update(), { head: null }, { kind: 'not_found' }, ['head']],
    [
      'an update of a memory in a namespace the key may not use',
      update({ allowedNamespaces: ['home'] }),
      { head: HEAD },
      { kind: 'not_found' },
      ['head'],
    ],
    ['an update of a merged duplicate', update(), { head: { ...HEAD, mergedInto: 'm2' } }, { kind: 'merged', mergedInto: 'm2' }, ['head']],
    [
      'an update whose If-Match is stale',
      update({ ifMatch: 1 }),
      { head: HEAD },
      { kind: 'version_mismatch', currentVersion: 2 },
      ['head'],
    ],
    [
      'an update naming another namespace',
      update({ namespace: 'home' }),
      { head: HEAD },
      { kind: 'namespace_mismatch', current: 'work' },
      ['head'],
    ],
    [
      'a rollback to a version that does not exist',
      rollback({ targetVersion: 9 }),
      { head: HEAD, version: null },
      { kind: 'target_version_not_found' },
      ['head', 'versionContent'],
    ],
    [
      'an update that grows past the storage quota',
      update({ quota: { ...UNLIMITED, storageBytes: 100 } }),
      { head: HEAD, totals: { memoryCount: 1, storageBytes: 100 } },
      { kind: 'quota_exceeded', limit: 'storage' },
      ['head', 'totals'],
    ],
  ];
  it.each(table)('%s', (_name, req, store, result, asked) => {
    const s = snapshot(store);
    expect(decideWrite('t1', req, s)).toEqual({ kind: 'answer', result });
    expect(s.asked).toEqual(asked);
  });
});

describe('decideWrite accepts', () => {
  it('a create: a new memory row at version 1, one memory and its bytes counted', () => {
    const s = snapshot({});
    const d = decideWrite('t1', create({ idempotency: claim }), s);
    const receipt = { memoryId: 'm1', kind: 'create', version: 1, pendingCount: 1, rolledBackTo: null };
    expect(d).toEqual({
      kind: 'accept',
      write: {
        receipt,
        head: { kind: 'insert', memory: newMemory('t1', 'm1', 'work', content('hello'), SIZE('hello'), AT) },
        sensitivity: 'high',
        queued: {
          memoryId: 'm1',
          namespace: 'work',
          version: 1,
          kind: 'create',
          content: content('hello'),
          rolledBackTo: null,
          acceptedAt: AT,
        },
        usage: { period: '2030-01', memories: 1, bytes: SIZE('hello') },
        idempotency: { key: 'k', requestHash: 'h1', receipt, createdAt: AT, expiresAt: LATER },
      },
    });
    // An unlimited plan never reads its counters; an unseen key is only looked up.
    expect(s.asked).toEqual(['idempotency']);
  });

  it('an expired key counts as unseen', () => {
    expect(decideWrite('t1', create({ idempotency: claim }), snapshot({ seen: { requestHash: 'h2', expiresAt: AT } })).kind).toBe('accept');
  });

  it('an update: the head moves one version on, the byte difference counted, the writer sensitivity shown', () => {
    const d = decideWrite(
      't1',
      update({ ifMatch: 2, namespace: 'work', content: content('hello again', { writerSensitivity: 'medium' }) }),
      snapshot({ head: HEAD }),
    );
    expect(d.kind === 'accept' && d.write).toMatchObject({
      receipt: { memoryId: 'm1', kind: 'update', version: 3, pendingCount: 2, rolledBackTo: null },
      head: { kind: 'move', fromVersion: 2, sizeBytes: SIZE('hello again') },
      sensitivity: 'medium',
      queued: { namespace: 'work', version: 3, kind: 'update' },
      usage: { memories: 0, bytes: SIZE('hello again') - SIZE('hello') },
      idempotency: null,
    });
  });

  it('a rollback: the target version written again, its sensitivity as the writer’s', () => {
    const d = decideWrite('t1', rollback(), snapshot({ head: HEAD, version: V1 }));
    const expected = {
      title: 't',
      content: 'first',
      tags: ['a'],
      type: 'episodic',
      agentId: 'ag',
      metadata: { k: 1 },
      writerSensitivity: 'low',
    };
    expect(d.kind === 'accept' && d.write).toMatchObject({
      receipt: { kind: 'rollback', version: 3, pendingCount: 2, rolledBackTo: 1 },
      sensitivity: 'low',
      queued: { content: expected, rolledBackTo: 1 },
      usage: { memories: 0, bytes: memorySizeBytes(expected) - HEAD.sizeBytes },
    });
  });

  it('a write that shrinks a memory, even over the storage quota', () => {
    const d = decideWrite(
      't1',
      update({ content: content(''), quota: { ...UNLIMITED, storageBytes: 1 } }),
      snapshot({ head: HEAD, totals: { memoryCount: 9, storageBytes: 999 } }),
    );
    expect(d.kind).toBe('accept');
  });

  it('a write that reaches each quota exactly', () => {
    const quota = { ...UNLIMITED, writes: 4, memories: 3, storageBytes: 10 + SIZE('hello') };
    expect(decideWrite('t1', create({ quota }), snapshot({ writesUsed: 3, totals: { memoryCount: 2, storageBytes: 10 } })).kind).toBe(
      'accept',
    );
  });
});
