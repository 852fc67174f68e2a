import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IdempotencyStore } from '../../server/ports/idempotency.js';
import {
  ConsolidationConflictError,
  type ApplyWriteOp,
  type DerivedState,
  type MemoryContent,
  type MemoryStore,
} from '../../server/ports/memories.js';
import type { UsageStore } from '../../server/ports/usage.js';
import type { EnqueueRequest, WriteQueue, WriteQuota } from '../../server/ports/write-queue.js';
import { memorySizeBytes } from '../../server/storage-rules/write-acceptance.js';

/** The ports of the memory aggregate as one adapter family provides them, over fresh storage. */
export interface MemoryPortsFixture {
  memories: MemoryStore;
  queue: WriteQueue;
  usage: UsageStore;
  idempotency: IdempotencyStore;
  /** Memory ids that currently have search index rows for the tenant. */
  indexedIds(tenantId: string): Promise<string[]>;
  close(): Promise<void>;
}

const PERIOD = '2030-01';
const UNLIMITED: WriteQuota = { period: PERIOD, writes: null, storageBytes: null, memories: null };
const AT = '2030-01-15T10:00:00.000Z';

export function content(text: string, extra: Partial<MemoryContent> = {}): MemoryContent {
  return { title: '', content: text, tags: [], type: 'episodic', agentId: null, metadata: {}, writerSensitivity: null, ...extra };
}

/** A consolidated memory's derived state with neutral defaults. */
export function derived(extra: Partial<DerivedState> = {}): DerivedState {
  return {
    status: 'active',
    sensitivity: 'low',
    sensitivityReasons: [],
    injectionFlagged: false,
    injectionScore: 0,
    injectionPatterns: [],
    quality: 0.5,
    contradictionStatus: 'clear',
    contradictionPolicy: null,
    conflictsWith: [],
    supersededBy: null,
    mergedInto: null,
    fingerprint: randomUUID(),
    subjects: [],
    ...extra,
  };
}

/**
 * The behaviour every adapter family of the memory aggregate (memory store, write queue, usage,
 * idempotency) must show. Runs against the embedded adapters always and MongoDB when configured.
 */
export function describeMemoryStoreContract(name: string, make: () => Promise<MemoryPortsFixture>): void {
  describe(`memory store contract: ${name}`, () => {
    let f: MemoryPortsFixture;
    let tenant: string;
    beforeEach(async () => {
      f = await make();
      tenant = randomUUID();
    });
    afterEach(async () => {
      await f.close();
    });

    const create = (tenantId: string, text: string, opts: Partial<Extract<EnqueueRequest, { kind: 'create' }>> = {}) =>
      f.queue.enqueue(tenantId, {
        kind: 'create',
        memoryId: randomUUID(),
        namespace: 'default',
        content: content(text),
        allowedNamespaces: null,
        idempotency: null,
        quota: UNLIMITED,
        acceptedAt: AT,
        ...opts,
      });

    const update = (tenantId: string, memoryId: string, text: string, opts: Partial<Extract<EnqueueRequest, { kind: 'update' }>> = {}) =>
      f.queue.enqueue(tenantId, {
        kind: 'update',
        memoryId,
        namespace: null,
        ifMatch: null,
        content: content(text),
        allowedNamespaces: null,
        idempotency: null,
        quota: UNLIMITED,
        acceptedAt: AT,
        ...opts,
      });

    /** Applies every queued write of the tenant as-is (a minimal consolidation). */
    async function consolidateAll(tenantId: string, extra: (w: { memoryId: string }) => Partial<DerivedState> = () => ({})) {
      const writes = await f.queue.peek(tenantId, 1000);
      const ops: ApplyWriteOp[] = writes.map((w) => {
        const d = derived(extra(w));
        return {
          kind: 'apply',
          writeId: w.id,
          memoryId: w.memoryId,
          namespace: w.namespace,
          version: w.version,
          snapshot: { change: w.kind, ...w.content, sensitivity: 'low', status: d.status, rolledBackTo: w.rolledBackTo, createdAt: AT },
          derived: d,
          ...(d.mergedInto ? { usage: { memories: -1, bytes: -memorySizeBytes(w.content) } } : {}),
        };
      });
      const last = new Map(writes.map((w) => [w.memoryId, w]));
      await f.memories.commitConsolidation(tenantId, {
        ops,
        indexUpserts: [...last.values()].map((w) => ({
          memoryId: w.memoryId,
          namespace: w.namespace,
          agentId: w.content.agentId,
          title: w.content.title,
          content: w.content.content,
          tags: w.content.tags,
          status: 'active',
          injectionFlagged: false,
          quality: 0.5,
          createdAt: AT,
          vector: null,
          entities: [],
        })),
        indexRemovals: [],
        at: AT,
      });
      return writes;
    }

    it('accepts a create durably: the record is readable at once, dirty, with the writer content', async () => {
      const r = await create(tenant, 'Alice lives in Paris', {
        content: content('Alice lives in Paris', { title: 't', tags: ['a'], writerSensitivity: 'low' }),
      });
      expect(r).toMatchObject({ kind: 'accepted', receipt: { kind: 'create', version: 1, pendingCount: 1, rolledBackTo: null } });
      if (r.kind !== 'accepted') return;
      const m = await f.memories.get(tenant, r.receipt.memoryId);
      expect(m).toMatchObject({
        tenantId: tenant,
        namespace: 'default',
        title: 't',
        content: 'Alice lives in Paris',
        tags: ['a'],
        version: 1,
        committedVersion: 0,
        pendingCount: 1,
        status: 'active',
        sensitivity: 'low',
        writerSensitivity: 'low',
        contradictionStatus: 'clear',
      });
      const queued = await f.queue.peek(tenant, 10);
      expect(queued).toHaveLength(1);
      expect(queued[0]).toMatchObject({
        memoryId: r.receipt.memoryId,
        version: 1,
        kind: 'create',
        content: { content: 'Alice lives in Paris' },
      });
      expect(await f.queue.pendingCount(tenant)).toBe(1);
      const usage = await f.usage.snapshot(tenant, PERIOD);
      expect(usage).toMatchObject({
        writes: 1,
        memoryCount: 1,
        pendingWrites: 1,
        storageBytes: memorySizeBytes(content('Alice lives in Paris', { title: 't', tags: ['a'] })),
      });
    });

    it('reads search hits as the same fields of the full records, for the ids the tenant has', async () => {
      const a = await create(tenant, 'kiln firing schedule', {
        content: content('kiln firing schedule', { title: 'kiln', tags: ['pottery', 'heat'] }),
      });
      // Text and metadata that JSON must escape or nest come back as written.
      const awkward = 'a "quoted" \\ back\nslash, tab\t, emoji 🙂, 中文, \u2028 and \u0001';
      const b = await create(tenant, awkward, {
        content: content(awkward, {
          title: '{"not": json}',
          tags: ['x"y', '🙂'],
          agentId: 'agent-1',
          metadata: { note: 'say "hi"\\n', ratio: 2.5, none: null, flag: true },
        }),
      });
      if (a.kind !== 'accepted' || b.kind !== 'accepted') throw new Error('not accepted');
      const ids = [a.receipt.memoryId, b.receipt.memoryId, randomUUID()];
      const full = new Map((await f.memories.getMany(tenant, ids)).map((m) => [m.id, m]));
      const hits = await f.memories.getHits(tenant, ids);
      expect(hits.map((h) => h.id).sort()).toEqual([a.receipt.memoryId, b.receipt.memoryId].sort());
      for (const h of hits) {
        const m = full.get(h.id)!;
        expect(h).toEqual({
          id: m.id,
          namespace: m.namespace,
          agentId: m.agentId,
          title: m.title,
          content: m.content,
          tags: m.tags,
          metadata: m.metadata,
          version: m.version,
          committedVersion: m.committedVersion,
          createdAt: m.createdAt,
          injectionFlagged: m.injectionFlagged,
        });
      }
      expect(hits.find((h) => h.id === a.receipt.memoryId)).toMatchObject({ title: 'kiln', tags: ['pottery', 'heat'], version: 1 });
      expect(hits.find((h) => h.id === b.receipt.memoryId)).toMatchObject({
        content: awkward,
        tags: ['x"y', '🙂'],
        agentId: 'agent-1',
        metadata: { note: 'say "hi"\\n', ratio: 2.5, none: null, flag: true },
      });
      expect(await f.memories.getHits(tenant, [])).toEqual([]);
    });

    it('shows an unclassified memory as high sensitivity until consolidated when the writer gave none', async () => {
      const r = await create(tenant, 'card 4111 1111 1111 1111');
      if (r.kind !== 'accepted') throw new Error(r.kind);
      expect((await f.memories.get(tenant, r.receipt.memoryId))?.sensitivity).toBe('high');
    });

    it('keeps another tenant out: reads, updates and deletes answer not found', async () => {
      const r = await create(tenant, 'private');
      if (r.kind !== 'accepted') throw new Error(r.kind);
      const other = randomUUID();
      expect(await f.memories.get(other, r.receipt.memoryId)).toBeNull();
      expect(await f.memories.getMany(other, [r.receipt.memoryId])).toEqual([]);
      expect(await f.memories.getHits(other, [r.receipt.memoryId])).toEqual([]);
      expect((await update(other, r.receipt.memoryId, 'hijack')).kind).toBe('not_found');
      expect(await f.memories.delete(other, r.receipt.memoryId)).toBe(false);
      expect(await f.memories.listVersions(other, r.receipt.memoryId)).toEqual([]);
      expect((await f.memories.list(other, { namespaces: null, limit: 10, offset: 0 })).total).toBe(0);
      expect(await f.memories.get(tenant, r.receipt.memoryId)).not.toBeNull();
    });

    it('reserves versions in order and refuses a stale If-Match', async () => {
      const r = await create(tenant, 'v1');
      if (r.kind !== 'accepted') throw new Error(r.kind);
      const id = r.receipt.memoryId;
      expect(await update(tenant, id, 'v2', { ifMatch: 1 })).toMatchObject({ kind: 'accepted', receipt: { version: 2, pendingCount: 2 } });
      expect(await update(tenant, id, 'stale', { ifMatch: 1 })).toEqual({ kind: 'version_mismatch', currentVersion: 2 });
      expect(await update(tenant, id, 'v3')).toMatchObject({ kind: 'accepted', receipt: { version: 3, pendingCount: 3 } });
      const m = await f.memories.get(tenant, id);
      expect(m).toMatchObject({ content: 'v3', version: 3, committedVersion: 0, pendingCount: 3 });
      expect((await f.queue.peek(tenant, 10)).map((w) => [w.version, w.content.content])).toEqual([
        [1, 'v1'],
        [2, 'v2'],
        [3, 'v3'],
      ]);
    });

    it('limits updates to the allowed namespaces and never moves a memory between namespaces', async () => {
      const r = await create(tenant, 'in a', { namespace: 'a' });
      if (r.kind !== 'accepted') throw new Error(r.kind);
      expect((await update(tenant, r.receipt.memoryId, 'x', { allowedNamespaces: ['b'] })).kind).toBe('not_found');
      expect(await update(tenant, r.receipt.memoryId, 'x', { namespace: 'b' })).toEqual({ kind: 'namespace_mismatch', current: 'a' });
      expect((await update(tenant, r.receipt.memoryId, 'x', { allowedNamespaces: ['a'], namespace: 'a' })).kind).toBe('accepted');
    });

    it('replays an idempotent retry, refuses the key for another request, and frees it after expiry', async () => {
      const claim = { key: 'k-1', requestHash: 'h1', expiresAt: '2030-01-16T00:00:00.000Z' };
      const first = await create(tenant, 'once', { idempotency: claim });
      const again = await create(tenant, 'once', { idempotency: claim });
      expect(first.kind).toBe('accepted');
      expect(again.kind).toBe('replayed');
      if (first.kind !== 'accepted' || again.kind !== 'replayed') return;
      expect(again.receipt).toEqual(first.receipt);
      expect(await f.queue.pendingCount(tenant)).toBe(1);
      expect((await create(tenant, 'other', { idempotency: { ...claim, requestHash: 'h2' } })).kind).toBe('idempotency_mismatch');
      // Keys are per tenant.
      expect((await create(randomUUID(), 'once', { idempotency: claim })).kind).toBe('accepted');
      // After expiry the key may be reused.
      expect(
        (await create(tenant, 'later', { idempotency: { ...claim, requestHash: 'h3' }, acceptedAt: '2030-01-17T00:00:00.000Z' })).kind,
      ).toBe('accepted');
      expect((await f.usage.snapshot(tenant, PERIOD)).writes).toBe(2);
    });

    it('enforces write, memory and storage quotas atomically', async () => {
      const q = { ...UNLIMITED, writes: 2 };
      expect((await create(tenant, 'a', { quota: q })).kind).toBe('accepted');
      expect((await create(tenant, 'b', { quota: q })).kind).toBe('accepted');
      expect(await create(tenant, 'c', { quota: q })).toEqual({ kind: 'quota_exceeded', limit: 'writes' });
      expect((await f.usage.snapshot(tenant, PERIOD)).writes).toBe(2);
      // Another period starts from zero.
      expect((await create(tenant, 'c', { quota: { ...q, period: '2030-02' } })).kind).toBe('accepted');

      const t2 = randomUUID();
      expect((await create(t2, 'a', { quota: { ...UNLIMITED, memories: 1 } })).kind).toBe('accepted');
      expect(await create(t2, 'b', { quota: { ...UNLIMITED, memories: 1 } })).toEqual({ kind: 'quota_exceeded', limit: 'memories' });

      const t3 = randomUUID();
      const size = memorySizeBytes(content('12345'));
      const r = await create(t3, '12345', { quota: { ...UNLIMITED, storageBytes: size } });
      expect(r.kind).toBe('accepted');
      expect(await create(t3, 'x', { quota: { ...UNLIMITED, storageBytes: size } })).toEqual({ kind: 'quota_exceeded', limit: 'storage' });
      if (r.kind !== 'accepted') return;
      // Shrinking is always allowed; growing past the limit is not.
      expect((await update(t3, r.receipt.memoryId, '1', { quota: { ...UNLIMITED, storageBytes: size } })).kind).toBe('accepted');
      expect(await update(t3, r.receipt.memoryId, '123456', { quota: { ...UNLIMITED, storageBytes: size } })).toEqual({
        kind: 'quota_exceeded',
        limit: 'storage',
      });
    });

    it('counts concurrent writes exactly against the quotas, however they are grouped', async () => {
      const q = { ...UNLIMITED, writes: 5, memories: 4 };
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => create(tenant, `w${i}`, { quota: q })));
      // Exactly four fit the memory quota, whichever four (a store may commit concurrent writes in any order).
      expect(results.filter((r) => r.kind === 'accepted')).toHaveLength(4);
      expect(results.filter((r) => r.kind === 'quota_exceeded' && r.limit === 'memories')).toHaveLength(8);
      const acceptedTexts = results.flatMap((r, i) => (r.kind === 'accepted' ? [`w${i}`] : []));
      const usage = await f.usage.snapshot(tenant, PERIOD);
      expect(usage.writes).toBe(4);
      expect(usage.memoryCount).toBe(4);
      expect(usage.storageBytes).toBe(acceptedTexts.reduce((sum, t) => sum + memorySizeBytes(content(t)), 0));

      // Writes across a period boundary, queued together: each period counts its own writes, while the
      // memory quota (not per period) sees them all.
      const t2 = randomUUID();
      const q2 = (period: string) => ({ ...UNLIMITED, period, writes: 1, memories: 2 });
      const periods = [PERIOD, '2030-02', '2030-02', '2030-03'];
      const mixed = await Promise.all(periods.map((period, i) => create(t2, `m${i}`, { quota: q2(period) })));
      const acceptedIn = (period: string) => mixed.filter((r, i) => r.kind === 'accepted' && periods[i] === period).length;
      expect(mixed.filter((r) => r.kind === 'accepted')).toHaveLength(2); // the memory quota
      for (const period of new Set(periods)) {
        expect(acceptedIn(period)).toBeLessThanOrEqual(1); // the write quota, per period
        expect((await f.usage.snapshot(t2, period)).writes).toBe(acceptedIn(period));
      }
      expect((await f.usage.snapshot(t2, PERIOD)).memoryCount).toBe(2);
    });

    it('rejects only the write that fails; the writes queued with it are accepted and counted', async () => {
      const first = await create(tenant, 'original');
      if (first.kind !== 'accepted') throw new Error(first.kind);
      const results = await Promise.allSettled([
        create(tenant, 'before'),
        create(tenant, 'same id again', { memoryId: first.receipt.memoryId }), // a primary-key violation
        create(tenant, 'after'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const usage = await f.usage.snapshot(tenant, PERIOD);
      expect(usage.writes).toBe(3);
      expect(usage.memoryCount).toBe(3);
      expect(await f.queue.pendingCount(tenant)).toBe(3);
    });

    it('commits a consolidation: versions, consolidated state, index rows and the queue in one step', async () => {
      const r = await create(tenant, 'first');
      if (r.kind !== 'accepted') throw new Error(r.kind);
      const id = r.receipt.memoryId;
      await update(tenant, id, 'second');
      await consolidateAll(tenant, () => ({
        sensitivity: 'medium',
        injectionFlagged: true,
        injectionScore: 0.8,
        injectionPatterns: [{ id: 'x', category: 'y', evidence: 'z', weight: 0.8 }],
        subjects: ['alice'],
        fingerprint: 'fp-1',
      }));
      const m = await f.memories.get(tenant, id);
      expect(m).toMatchObject({
        version: 2,
        committedVersion: 2,
        pendingCount: 0,
        content: 'second',
        sensitivity: 'medium',
        injectionFlagged: true,
        injectionScore: 0.8,
      });
      expect(m?.injectionPatterns).toEqual([{ id: 'x', category: 'y', evidence: 'z', weight: 0.8 }]);
      const versions = await f.memories.listVersions(tenant, id);
      expect(versions.map((v) => [v.version, v.change, v.content])).toEqual([
        [1, 'create', 'first'],
        [2, 'update', 'second'],
      ]);
      expect(await f.memories.getVersion(tenant, id, 2)).toMatchObject({ content: 'second', change: 'update' });
      expect(await f.memories.getVersion(tenant, id, 3)).toBeNull();
      expect(await f.queue.peek(tenant, 10)).toEqual([]);
      expect(await f.queue.tenantsWithPending(10)).not.toContain(tenant);
      expect(await f.indexedIds(tenant)).toEqual([id]);
      expect((await f.usage.snapshot(tenant, PERIOD)).pendingWrites).toBe(0);
      // Candidates: by fingerprint and by subject, never itself, never another namespace.
      expect((await f.memories.findCandidates(tenant, { namespace: 'default', fingerprint: 'fp-1', limit: 5 })).map((c) => c.id)).toEqual([
        id,
      ]);
      expect(
        (await f.memories.findCandidates(tenant, { namespace: 'default', subjects: ['alice', 'bob'], limit: 5 })).map((c) => c.id),
      ).toEqual([id]);
      expect(await f.memories.findCandidates(tenant, { namespace: 'default', subjects: ['alice'], excludeIds: [id], limit: 5 })).toEqual(
        [],
      );
      expect(await f.memories.findCandidates(tenant, { namespace: 'other', subjects: ['alice'], limit: 5 })).toEqual([]);
      // A memory with queued writes is no candidate.
      await update(tenant, id, 'third');
      expect(await f.memories.findCandidates(tenant, { namespace: 'default', subjects: ['alice'], limit: 5 })).toEqual([]);
    });

    it("never offers another tenant's memory as a dedupe or contradiction candidate, however the lookups were warmed", async () => {
      const other = randomUUID();
      const mine = await create(tenant, 'Alice lives in Paris');
      const theirs = await create(other, 'Alice lives in Paris');
      if (mine.kind !== 'accepted' || theirs.kind !== 'accepted') throw new Error('not accepted');
      // Same namespace, same fingerprint, same subject keys: only the tenant tells them apart.
      for (const t of [tenant, other]) await consolidateAll(t, () => ({ fingerprint: 'fp-shared', subjects: ['alice', 'paris'] }));
      const lookups = [
        { namespace: 'default', fingerprint: 'fp-shared', limit: 10 },
        { namespace: 'default', subjects: ['alice', 'paris'], limit: 10 },
        { namespace: 'default', fingerprint: 'fp-shared', subjects: ['alice'], limit: 10 },
      ];
      // The other tenant's lookups first, so anything a store remembers holds their memory.
      for (const q of lookups) expect((await f.memories.findCandidates(other, q)).map((c) => c.id)).toEqual([theirs.receipt.memoryId]);
      for (const q of lookups) expect((await f.memories.findCandidates(tenant, q)).map((c) => c.id)).toEqual([mine.receipt.memoryId]);
      expect(await f.memories.findCandidates(randomUUID(), lookups[2]!)).toEqual([]);
    });

    it('returns each candidate with the content of its latest committed version', async () => {
      const r = await create(tenant, 'Alice lives in Paris');
      if (r.kind !== 'accepted') throw new Error(r.kind);
      const id = r.receipt.memoryId;
      await consolidateAll(tenant, () => ({ subjects: ['alice'] }));
      const lookup = () => f.memories.findCandidates(tenant, { namespace: 'default', subjects: ['alice'], limit: 5 });
      expect((await lookup()).map((c) => [c.id, c.committedVersion, c.content])).toEqual([[id, 1, 'Alice lives in Paris']]);
      expect((await lookup()).map((c) => [c.id, c.committedVersion, c.content])).toEqual([[id, 1, 'Alice lives in Paris']]);
      // Read again after a new version: the earlier answer (which a store may keep) is not reused.
      await update(tenant, id, 'Alice lives in Lyon');
      await consolidateAll(tenant, () => ({ subjects: ['alice'] }));
      expect((await lookup()).map((c) => [c.id, c.committedVersion, c.content])).toEqual([[id, 2, 'Alice lives in Lyon']]);
      // A rollback is a new version too, with the older content.
      await f.queue.enqueue(tenant, {
        kind: 'rollback',
        memoryId: id,
        targetVersion: 1,
        ifMatch: null,
        allowedNamespaces: null,
        idempotency: null,
        quota: UNLIMITED,
        acceptedAt: AT,
      });
      await consolidateAll(tenant, () => ({ subjects: ['alice'] }));
      expect((await lookup()).map((c) => [c.id, c.committedVersion, c.content])).toEqual([[id, 3, 'Alice lives in Paris']]);
      await f.memories.delete(tenant, id);
      expect(await lookup()).toEqual([]);
    });

    it('applies a queued write exactly once: a replayed plan commits nothing', async () => {
      const r = await create(tenant, 'once');
      const r2 = await create(tenant, 'twice');
      if (r.kind !== 'accepted' || r2.kind !== 'accepted') throw new Error('not accepted');
      const writes = await f.queue.peek(tenant, 10);
      const op = (i: number): ApplyWriteOp => ({
        kind: 'apply',
        writeId: writes[i]!.id,
        memoryId: writes[i]!.memoryId,
        namespace: 'default',
        version: 1,
        snapshot: { change: 'create', ...writes[i]!.content, sensitivity: 'low', status: 'active', rolledBackTo: null, createdAt: AT },
        derived: derived(),
      });
      await f.memories.commitConsolidation(tenant, { ops: [op(0)], indexUpserts: [], indexRemovals: [], at: AT });
      // The same write again, together with a fresh one: the whole plan is refused, nothing of it lands.
      await expect(
        f.memories.commitConsolidation(tenant, { ops: [op(1), op(0)], indexUpserts: [], indexRemovals: [], at: AT }),
      ).rejects.toBeInstanceOf(ConsolidationConflictError);
      expect(await f.memories.listVersions(tenant, r.receipt.memoryId)).toHaveLength(1);
      expect(await f.memories.listVersions(tenant, r2.receipt.memoryId)).toHaveLength(0);
      expect((await f.memories.get(tenant, r2.receipt.memoryId))?.pendingCount).toBe(1);
      expect(await f.queue.pendingCount(tenant)).toBe(1);
    });

    it('supersedes another memory with a new version only while nothing is queued for it', async () => {
      const a = await create(tenant, 'Alice lives in Paris');
      if (a.kind !== 'accepted') throw new Error(a.kind);
      await consolidateAll(tenant);
      const b = await create(tenant, 'Alice moved to Berlin');
      if (b.kind !== 'accepted') throw new Error(b.kind);
      const supersede = {
        kind: 'update' as const,
        memoryId: a.receipt.memoryId,
        expectCommittedVersion: 1,
        snapshot: {
          change: 'supersede' as const,
          ...content('Alice lives in Paris'),
          sensitivity: 'low' as const,
          status: 'superseded' as const,
          rolledBackTo: null,
          createdAt: AT,
        },
        set: {
          status: 'superseded' as const,
          contradictionStatus: 'resolved' as const,
          contradictionPolicy: 'NEWER_WINS' as const,
          conflictsWith: [b.receipt.memoryId],
          supersededBy: b.receipt.memoryId,
        },
      };
      // A write queued for the older memory makes the plan stale.
      await update(tenant, a.receipt.memoryId, 'Alice lives in Paris, France');
      await expect(
        f.memories.commitConsolidation(tenant, { ops: [supersede], indexUpserts: [], indexRemovals: [], at: AT }),
      ).rejects.toBeInstanceOf(ConsolidationConflictError);
      await consolidateAll(tenant);
      await f.memories.commitConsolidation(tenant, {
        ops: [{ ...supersede, expectCommittedVersion: 2 }],
        indexUpserts: [],
        indexRemovals: [],
        at: AT,
      });
      const older = await f.memories.get(tenant, a.receipt.memoryId);
      expect(older).toMatchObject({
        status: 'superseded',
        version: 3,
        committedVersion: 3,
        contradictionStatus: 'resolved',
        supersededBy: b.receipt.memoryId,
        conflictsWith: [b.receipt.memoryId],
      });
      expect((await f.memories.listVersions(tenant, a.receipt.memoryId)).map((v) => v.change)).toEqual(['create', 'update', 'supersede']);
    });

    it('queues a rollback with the target version content, and refuses an unknown target', async () => {
      const r = await create(tenant, 'original', { content: content('original', { title: 'T1', tags: ['x'] }) });
      if (r.kind !== 'accepted') throw new Error(r.kind);
      const id = r.receipt.memoryId;
      await update(tenant, id, 'changed');
      await consolidateAll(tenant);
      const base = { memoryId: id, allowedNamespaces: null, idempotency: null, quota: UNLIMITED, acceptedAt: AT, ifMatch: null };
      expect(await f.queue.enqueue(tenant, { ...base, kind: 'rollback', targetVersion: 9 })).toEqual({ kind: 'target_version_not_found' });
      const rb = await f.queue.enqueue(tenant, { ...base, kind: 'rollback', targetVersion: 1 });
      expect(rb).toMatchObject({ kind: 'accepted', receipt: { kind: 'rollback', version: 3, rolledBackTo: 1 } });
      expect(await f.memories.get(tenant, id)).toMatchObject({
        content: 'original',
        title: 'T1',
        tags: ['x'],
        version: 3,
        pendingCount: 1,
      });
      const [w] = await f.queue.peek(tenant, 10);
      expect(w).toMatchObject({
        kind: 'rollback',
        version: 3,
        rolledBackTo: 1,
        content: { content: 'original', title: 'T1', tags: ['x'] },
      });
    });

    it('deletes for good: row, versions, queued writes, index rows and usage; merged duplicates go with it', async () => {
      const r = await create(tenant, 'secret thing');
      const dup = await create(tenant, 'secret thing!');
      if (r.kind !== 'accepted' || dup.kind !== 'accepted') throw new Error('not accepted');
      await consolidateAll(tenant, (w) =>
        w.memoryId === dup.receipt.memoryId ? { status: 'archived', mergedInto: r.receipt.memoryId } : {},
      );
      await update(tenant, r.receipt.memoryId, 'secret thing, updated');
      expect((await f.usage.snapshot(tenant, PERIOD)).memoryCount).toBe(1);
      expect(await f.memories.delete(tenant, r.receipt.memoryId)).toBe(true);
      expect(await f.memories.get(tenant, r.receipt.memoryId)).toBeNull();
      expect(await f.memories.get(tenant, dup.receipt.memoryId)).toBeNull();
      expect(await f.memories.listVersions(tenant, r.receipt.memoryId)).toEqual([]);
      expect(await f.memories.listVersions(tenant, dup.receipt.memoryId)).toEqual([]);
      expect(await f.queue.peek(tenant, 10)).toEqual([]);
      expect(await f.indexedIds(tenant)).toEqual([]);
      const usage = await f.usage.snapshot(tenant, PERIOD);
      expect(usage).toMatchObject({ memoryCount: 0, storageBytes: 0, pendingWrites: 0 });
      expect(await f.memories.delete(tenant, r.receipt.memoryId)).toBe(false);
    });

    it('lists with filters, namespaces, merged duplicates hidden, pagination and a total', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await create(tenant, `note ${i} about ${i % 2 === 0 ? 'cats' : 'dogs'}`, {
          namespace: i < 4 ? 'a' : 'b',
          acceptedAt: `2030-01-0${i + 1}T00:00:00.000Z`,
          content: content(`note ${i} about ${i % 2 === 0 ? 'cats' : 'dogs'}`, { type: i === 0 ? 'semantic' : 'episodic' }),
        });
        if (r.kind !== 'accepted') throw new Error(r.kind);
        ids.push(r.receipt.memoryId);
      }
      await consolidateAll(tenant, (w) =>
        w.memoryId === ids[3]
          ? { status: 'archived', mergedInto: ids[1]! }
          : w.memoryId === ids[2]
            ? { sensitivity: 'high', contradictionStatus: 'flagged' }
            : {},
      );
      const list = (q: Partial<Parameters<MemoryStore['list']>[1]>) =>
        f.memories.list(tenant, { namespaces: null, limit: 10, offset: 0, ...q });
      const all = await list({});
      expect(all.total).toBe(4);
      expect(all.items.map((m) => m.id)).toEqual([ids[4], ids[2], ids[1], ids[0]]);
      expect((await list({ namespaces: ['a'] })).items.map((m) => m.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(await list({ namespaces: [] })).toEqual({ items: [], total: 0 });
      expect((await list({ text: 'CATS' })).items.map((m) => m.id)).toEqual([ids[4], ids[2], ids[0]]);
      expect((await list({ text: '100%' })).total).toBe(0);
      expect((await list({ type: 'semantic' })).items.map((m) => m.id)).toEqual([ids[0]]);
      expect((await list({ sensitivity: 'high' })).items.map((m) => m.id)).toEqual([ids[2]]);
      expect((await list({ contradiction: 'flagged' })).items.map((m) => m.id)).toEqual([ids[2]]);
      expect((await list({ status: 'archived', includeMerged: true })).items.map((m) => m.id)).toEqual([ids[3]]);
      expect((await list({ from: '2030-01-02T00:00:00.000Z', to: '2030-01-03T00:00:00.000Z' })).items.map((m) => m.id)).toEqual([
        ids[2],
        ids[1],
      ]);
      const page = await list({ limit: 2, offset: 1 });
      expect(page.total).toBe(4);
      expect(page.items.map((m) => m.id)).toEqual([ids[2], ids[1]]);

      // count and matchingIds select exactly what the list does, for the same filters.
      const filters: Partial<Parameters<MemoryStore['count']>[1]>[] = [
        {},
        { namespaces: ['a'] },
        { namespaces: [] },
        { text: 'CATS' },
        { sensitivity: 'high' },
        { contradiction: 'flagged' },
        { status: 'archived', includeMerged: true },
        { from: '2030-01-02T00:00:00.000Z', to: '2030-01-03T00:00:00.000Z' },
      ];
      for (const q of filters) {
        const listed = await list(q);
        expect(await f.memories.count(tenant, { namespaces: null, ...q })).toBe(listed.total);
        expect(await f.memories.matchingIds(tenant, { namespaces: null, ...q }, 10)).toEqual(listed.items.map((m) => m.id));
      }
      expect(await f.memories.matchingIds(tenant, { namespaces: null }, 2)).toEqual([ids[4], ids[2]]);
      expect(await f.memories.matchingIds(tenant, { namespaces: null }, 0)).toEqual([]);
      const other = randomUUID();
      expect(await f.memories.count(other, { namespaces: null })).toBe(0);
      expect(await f.memories.matchingIds(other, { namespaces: null }, 10)).toEqual([]);
    });

    it('pages every memory by keyset, newest first with ties in id order, merged duplicates left out', async () => {
      const ids: string[] = [];
      // Three share a creation time: the id orders them, and a page boundary falls between them.
      for (const acceptedAt of [
        '2030-01-01T00:00:00.000Z',
        '2030-01-02T00:00:00.000Z',
        '2030-01-02T00:00:00.000Z',
        '2030-01-02T00:00:00.000Z',
        '2030-01-03T00:00:00.000Z',
      ]) {
        const r = await create(tenant, `note ${ids.length}`, { acceptedAt });
        if (r.kind !== 'accepted') throw new Error(r.kind);
        ids.push(r.receipt.memoryId);
      }
      await create(randomUUID(), 'another tenant');
      await consolidateAll(tenant, (w) => (w.memoryId === ids[1] ? { status: 'archived', mergedInto: ids[0]! } : {}));
      const seen: string[] = [];
      for (let after: { createdAt: string; id: string } | null = null; ;) {
        const page = await f.memories.listAfter(tenant, after, 2);
        seen.push(...page.map((m) => m.id));
        if (page.length < 2) break;
        after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
      }
      const listed = await f.memories.list(tenant, { namespaces: null, limit: 10, offset: 0 });
      expect(seen).toEqual(listed.items.map((m) => m.id));
      expect(seen).toHaveLength(4);
      expect(seen).not.toContain(ids[1]);
      expect(await f.memories.listAfter(tenant, null, 0)).toEqual([]);
      // With merged duplicates (the portal's export): every memory of the tenant, same order.
      const all: string[] = [];
      for (let after: { createdAt: string; id: string } | null = null; ;) {
        const page = await f.memories.listAfter(tenant, after, 2, { includeMerged: true });
        all.push(...page.map((m) => m.id));
        if (page.length < 2) break;
        after = { createdAt: page.at(-1)!.createdAt, id: page.at(-1)!.id };
      }
      expect(all).toHaveLength(5);
      expect(all.filter((id) => id !== ids[1])).toEqual(seen);
    });

    it('totals live memories, bytes and queued writes per namespace, for the tenant only', async () => {
      const other = randomUUID();
      await create(other, 'other tenant', { namespace: 'a' });
      const a1 = await create(tenant, 'one in a', { namespace: 'a' });
      await create(tenant, 'two in a', { namespace: 'a' });
      await create(tenant, 'one in b', { namespace: 'b' });
      if (a1.kind !== 'accepted') throw new Error(a1.kind);
      const bytesOf = (text: string) => memorySizeBytes(content(text));
      expect(await f.usage.namespaceTotals(tenant, ['a'])).toEqual({
        memoryCount: 2,
        storageBytes: bytesOf('one in a') + bytesOf('two in a'),
        pendingWrites: 2,
      });
      expect(await f.usage.namespaceTotals(tenant, ['a', 'b'])).toMatchObject({ memoryCount: 3, pendingWrites: 3 });
      expect(await f.usage.namespaceTotals(tenant, ['c'])).toEqual({ memoryCount: 0, storageBytes: 0, pendingWrites: 0 });
      // Consolidated: nothing pending; a merged duplicate no longer counts, as in the tenant totals.
      await consolidateAll(tenant, (w) => (w.memoryId === a1.receipt.memoryId ? { status: 'archived', mergedInto: randomUUID() } : {}));
      expect(await f.usage.namespaceTotals(tenant, ['a'])).toEqual({ memoryCount: 1, storageBytes: bytesOf('two in a'), pendingWrites: 0 });
      expect((await f.usage.snapshot(tenant, PERIOD)).memoryCount).toBe(2);
    });

    it('counts reads and searches against limits atomically', async () => {
      expect(await f.usage.consume(tenant, PERIOD, 'reads', 2)).toBe(1);
      expect(await f.usage.consume(tenant, PERIOD, 'reads', 2)).toBe(2);
      expect(await f.usage.consume(tenant, PERIOD, 'reads', 2)).toBeNull();
      expect(await f.usage.consume(tenant, PERIOD, 'searches', null, 3)).toBe(3);
      expect(await f.usage.consume(tenant, PERIOD, 'searches', 0)).toBeNull();
      expect(await f.usage.consume(tenant, PERIOD, 'searches', 5, 3)).toBeNull(); // 3 + 3 > 5
      expect(await f.usage.consume(tenant, PERIOD, 'searches', 5, 2)).toBe(5);
      expect(await f.usage.snapshot(tenant, PERIOD)).toMatchObject({ reads: 2, searches: 5, writes: 0 });
      expect(await f.usage.snapshot(tenant, '2030-02')).toMatchObject({ reads: 0, searches: 0 });
    });

    it('counts every one of concurrent first requests of a period, up to the limit', async () => {
      const ascending = (values: (number | null)[]) => values.filter((v) => v !== null).sort((x, y) => x - y);
      const unlimited = await Promise.all(Array.from({ length: 8 }, () => f.usage.consume(tenant, '2030-04', 'reads', null)));
      expect(ascending(unlimited)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const roomy = await Promise.all(Array.from({ length: 8 }, () => f.usage.consume(tenant, '2030-05', 'reads', 100)));
      expect(ascending(roomy)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      // Only the requests beyond the limit are refused, however the first ones raced.
      const limited = await Promise.all(Array.from({ length: 8 }, () => f.usage.consume(tenant, '2030-06', 'searches', 5)));
      expect(ascending(limited)).toEqual([1, 2, 3, 4, 5]);
      expect(limited.filter((v) => v === null)).toHaveLength(3);
      expect(await f.usage.snapshot(tenant, '2030-06')).toMatchObject({ reads: 0, searches: 5 });
    });

    it("keeps each tenant's queue in acceptance order while tenants write concurrently", async () => {
      const t2 = randomUUID();
      const first = await create(tenant, 'first');
      if (first.kind !== 'accepted') throw new Error(first.kind);
      const id = first.receipt.memoryId;
      // Interleaved: updates of one memory of this tenant, and creates of another tenant.
      await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? update(tenant, id, `v${i}`) : create(t2, `other ${i}`))));
      for (const t of [tenant, t2]) {
        const ids = (await f.queue.peek(t, 100)).map((w) => w.id);
        expect(ids).toEqual([...ids].sort((x, y) => x - y));
        expect(new Set(ids).size).toBe(ids.length);
      }
      // A memory's versions queue in the order they were reserved.
      expect((await f.queue.peek(tenant, 100)).map((w) => w.version)).toEqual([1, 2, 3, 4]);
      expect(await f.queue.pendingCount(t2)).toBe(3);
      // Applied in queue order, every write commits.
      for (const t of [tenant, t2]) await consolidateAll(t);
      expect((await f.memories.get(tenant, id))!.committedVersion).toBe(4);
      expect(await f.queue.pendingCount(t2)).toBe(0);
    });

    it('counts a limited counter in a period first made by the other counter', async () => {
      expect(await f.usage.consume(tenant, '2030-03', 'reads', 10)).toBe(1);
      expect(await f.usage.consume(tenant, '2030-03', 'searches', 10)).toBe(1);
      expect(await f.usage.consume(tenant, '2030-03', 'searches', 10)).toBe(2);
    });

    it('keeps the tenant memory settings', async () => {
      expect(await f.memories.getSettings(tenant)).toEqual({ contradictionPolicy: 'NEWER_WINS', updatedAt: null });
      await f.memories.putSettings(tenant, { contradictionPolicy: 'FLAG' }, AT);
      expect(await f.memories.getSettings(tenant)).toEqual({ contradictionPolicy: 'FLAG', updatedAt: AT });
      expect((await f.memories.getSettings(randomUUID())).contradictionPolicy).toBe('NEWER_WINS');
    });

    it('lists tenants with queued writes, oldest first', async () => {
      const t2 = randomUUID();
      await create(tenant, 'x');
      await create(t2, 'y', { acceptedAt: '2030-01-15T10:00:01.000Z' });
      const tenants = await f.queue.tenantsWithPending(100);
      expect(tenants.indexOf(tenant)).toBeLessThan(tenants.indexOf(t2));
    });

    it('purges expired idempotency records', async () => {
      const claim = { key: 'k', requestHash: 'h', expiresAt: '2030-01-16T00:00:00.000Z' };
      expect((await create(tenant, 'once', { idempotency: claim })).kind).toBe('accepted');
      expect(await f.idempotency.purgeExpired('2030-01-17T00:00:00.000Z')).toBeGreaterThanOrEqual(1);
      // The record is gone, so the key is free even for a request accepted before it expired.
      expect((await create(tenant, 'other', { idempotency: { ...claim, requestHash: 'h2' } })).kind).toBe('accepted');
    });
  });
}
