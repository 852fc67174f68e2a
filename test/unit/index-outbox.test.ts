import type { Db } from 'mongodb';
import { describe, expect, it, vi } from 'vitest';
import { openIndexOutbox, type IndexOutbox, type MongoIndexSink } from '../../adapters/mongo/index-outbox.js';
import type { MemoryCollections } from '../../adapters/mongo/memory-collections.js';
import { AppError } from '../../server/errors.js';
import { SearchIndexConfigurationError, type IndexChange } from '../../server/ports/search-index.js';
import { netIndexChanges } from '../../server/services/search/index-changes.js';
import { createIndexOutboxService } from '../../server/services/search/index-outbox.js';
import { createQdrantSearchIndex } from '../../adapters/qdrant/search-index.js';
import { FakeDb } from '../support/fake-mongo.js';
import { QdrantEmulator } from '../support/qdrant-emulator.js';
import { indexedMemory } from '../support/indexed-memory.js';

/**
 * The index outbox of the server profile run here over a recording stand-in for MongoDB (the contract
 * suite runs it on a real server): what reaches the search index after a commit, after an outage, and
 * around an entry that always fails, and the requests the drain sends to the store.
 */

const T = 'tenant-1';

/** A search index that records each batch and can be down, refuse a memory, or time out on one. */
class FakeIndex {
  readonly requests: { tenantId: string; changes: IndexChange[] }[] = [];
  readonly indexed = new Map<string, Set<string>>();
  down = false;
  /** Every request refused as a deployment fault (a rotated API key). */
  misconfigured = false;
  readonly refuse = new Set<string>();
  readonly timeOut = new Set<string>();
  gate: Promise<void> | null = null;

  async applyChanges(tenantId: string, changes: readonly IndexChange[]) {
    this.requests.push({ tenantId, changes: [...changes] });
    if (this.gate) await this.gate;
    const ids = changes.map((c) => (c.op === 'upsert' ? c.doc.memoryId : c.memoryId));
    if (this.misconfigured) throw new SearchIndexConfigurationError('Qdrant refused the API key (upsert)');
    if (this.down || ids.some((id) => this.timeOut.has(id)))
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'the search index is unavailable (upsert)');
    const bad = ids.find((id) => this.refuse.has(id));
    if (bad) throw new Error(`Bad Request: point of ${bad} refused`);
    const set = this.indexed.get(tenantId) ?? this.indexed.set(tenantId, new Set()).get(tenantId)!;
    const { upserts, removals } = netIndexChanges(changes);
    for (const d of upserts) set.add(`${d.memoryId}@${d.title}`);
    for (const r of removals) for (const k of [...set]) if (k.startsWith(`${r.memoryId}@`)) set.delete(k);
  }

  ids(tenantId = T): string[] {
    return [...(this.indexed.get(tenantId) ?? [])].sort();
  }
}

function recordingLog() {
  const lines: { level: 'warn' | 'error'; fields: Record<string, unknown>; msg: string }[] = [];
  return {
    lines,
    warn: (fields: object, msg: string) => void lines.push({ level: 'warn', fields: fields as Record<string, unknown>, msg }),
    error: (fields: object, msg: string) => void lines.push({ level: 'error', fields: fields as Record<string, unknown>, msg }),
  };
}

async function setup(
  options: { batchSize?: number; maxAttempts?: number; db?: FakeDb; index?: FakeIndex; sink?: MongoIndexSink; leaseMs?: number } = {},
) {
  const db = options.db ?? new FakeDb();
  const index = options.index ?? new FakeIndex();
  const log = recordingLog();
  const memories = db.collection('memories');
  const outbox = db.collection('memory_index_outbox');
  const collections = { memories, outbox, inTransaction: db.inTransaction } as unknown as Pick<
    MemoryCollections,
    'memories' | 'outbox' | 'inTransaction'
  >;
  const ob: IndexOutbox = await openIndexOutbox(db as unknown as Db, collections, options.sink ?? index, {
    batchSize: options.batchSize ?? 4,
    maxAttempts: options.maxAttempts ?? 3,
    leaseMs: options.leaseMs,
    log,
  });
  let clock = 0;
  /** What a consolidation commit leaves: the memory at `version` and its upsert entry. */
  async function commit(memoryId: string, version = 1, tenantId = T) {
    const at = new Date(Date.UTC(2030, 0, 1) + ++clock * 1000).toISOString();
    memories.docs.set(memoryId, { _id: memoryId, tenantId, committedVersion: version, mergedInto: null });
    await outbox.insertOne(
      ob.entry(tenantId, memoryId, 'upsert', indexedMemory(memoryId, `v${version}`, { title: `v${version}` }), at, version),
    );
  }
  async function remove(memoryId: string, tenantId = T) {
    const at = new Date(Date.UTC(2030, 0, 1) + ++clock * 1000).toISOString();
    // As the memory store's purge does: the removal carries the version the memory left at.
    const version = (memories.docs.get(memoryId) as { committedVersion?: number } | undefined)?.committedVersion ?? 0;
    memories.docs.delete(memoryId);
    await outbox.insertOne(ob.entry(tenantId, memoryId, 'remove', null, at, version));
  }
  return { db, ob, index, log, memories, outbox, poisoned: db.collection('memory_index_outbox_poisoned'), commit, remove };
}

describe('index outbox: batches', () => {
  it("applies a tenant's entries as one index request per batch, in keyset pages, and deletes them", async () => {
    const s = await setup({ batchSize: 4 });
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) await s.commit(id);
    const from = s.db.calls.length;
    await s.ob.flush(T);
    expect(s.index.requests.map((r) => r.changes.length)).toEqual([4, 2]);
    expect(s.index.ids()).toEqual(['a@v1', 'b@v1', 'c@v1', 'd@v1', 'e@v1', 'f@v1']);
    expect(s.outbox.docs.size).toBe(0);
    // Each page is a range of (tenantId, at, _id) after the last entry of the previous one; a commit's
    // flush takes only entries never tried.
    const finds = s.db.callsTo('memory_index_outbox', from).filter((c) => c.method === 'find');
    expect(finds).toHaveLength(2);
    expect(finds[0]!.args).toEqual([{ tenantId: T, lastAttemptAt: null }, {}, { sort: { at: 1, _id: 1 } }, { limit: 4 }]);
    const after = (finds[1]!.args[0] as { $or: [{ at: { $gt: string } }, { at: string; _id: { $gt: string } }] }).$or;
    expect(after[1]._id.$gt).toMatch(new RegExp(`^${T}:d:upsert:`));
    expect(after[0].at.$gt).toBe(after[1].at);
    // The memories' states are read once per batch, not once per entry.
    expect(s.db.callsTo('memories', from).filter((c) => c.method === 'find')).toHaveLength(4); // decide + re-check, two batches
  });

  it('decides every entry against the memory now: stale upserts dropped, deleted and merged memories removed', async () => {
    const s = await setup({ batchSize: 10 });
    s.index.down = true;
    await s.commit('m1', 1);
    await s.commit('m1', 2);
    await s.commit('m2', 1);
    await s.commit('m3', 1);
    await s.ob.flush(T);
    s.index.down = false;
    s.index.requests.length = 0;
    await s.remove('m2');
    s.memories.docs.get('m3')!.mergedInto = 'm1';
    await s.ob.drain(T);
    expect(s.index.requests).toHaveLength(1);
    expect(
      s.index.requests[0]!.changes.map((c) =>
        c.op === 'upsert' ? `upsert ${c.doc.memoryId}@${c.doc.title}` : `remove ${c.memoryId} at v${c.committedVersion}`,
      ),
    ).toEqual(['upsert m1@v2', 'remove m2 at v1', 'remove m3 at v1', 'remove m2 at v1']);
    expect(s.index.ids()).toEqual(['m1@v2']);
    expect(s.outbox.docs.size).toBe(0);
  });
});

describe('index outbox: an outage', () => {
  it('keeps every entry uncounted and logs tenant and entry; the drain job applies them all once the index is back', async () => {
    const s = await setup({ batchSize: 4 });
    s.index.down = true;
    for (const id of ['a', 'b', 'c']) await s.commit(id);
    await s.ob.flush(T);
    // A commit's flush spends one request finding the index down.
    expect(s.index.requests).toHaveLength(1);
    expect([...s.outbox.docs.values()].map((d) => [d.attempts, d.lastError])).toEqual([
      [0, 'the search index is unavailable (upsert)'],
      [0, 'the search index is unavailable (upsert)'],
      [0, 'the search index is unavailable (upsert)'],
    ]);
    const warned = s.log.lines.find((l) => l.level === 'warn')!;
    expect(warned.fields).toMatchObject({ tenantId: T, entryId: expect.stringMatching(/^tenant-1:a:upsert:/) });

    // The drain job, still down: the batch, then two entries alone, then it stops. Nothing counted.
    const service = createIndexOutboxService({ outbox: s.ob, logger: { warn: () => undefined }, clock: Date.now });
    const down = await service.drainPending({ budgetMs: 60_000 });
    expect(down).toMatchObject({ outage: true, applied: 0 });
    expect(s.index.requests).toHaveLength(4);
    expect([...s.outbox.docs.values()].every((d) => d.attempts === 0)).toBe(true);
    expect(await s.ob.counts()).toEqual({ pending: 3, poisoned: 0 });

    s.index.down = false;
    const up = await service.drainPending({ budgetMs: 60_000 });
    expect(up).toMatchObject({ outage: false, tenants: 1, applied: 3, failed: 0 });
    expect(s.index.ids()).toEqual(['a@v1', 'b@v1', 'c@v1']);
    expect(await s.ob.counts()).toEqual({ pending: 0, poisoned: 0 });
  });

  it('finds the tenants with pending entries by a grouped scan of the outbox index, read through a cursor up to the limit', async () => {
    const s = await setup();
    s.index.down = true;
    await s.commit('a', 1, 't2');
    await s.commit('b', 1, 't1');
    await s.ob.flush('t1');
    await s.ob.flush('t2');
    const from = s.db.calls.length;
    expect(await s.ob.tenantsWithPending(10)).toEqual(['t1', 't2']);
    // Not `distinct`, whose one reply holds every tenant (16 MB at most): a $sort on the index's key
    // and a $group on its first field taking $first are a distinct scan of the index, and $limit cuts it.
    expect(s.db.calls.slice(from).map((c) => [c.collection, c.method, ...c.args])).toEqual([
      [
        'memory_index_outbox',
        'aggregate',
        [{ $sort: { tenantId: 1, at: 1, _id: 1 } }, { $group: { _id: '$tenantId', at: { $first: '$at' } } }, { $limit: 10 }],
      ],
    ]);
    expect(await s.ob.tenantsWithPending(1)).toHaveLength(1);
  });
});

describe('index outbox: an entry that always fails', () => {
  it('fails alone, is set aside after the configured attempts, never holds up later entries, and can be put back', async () => {
    const s = await setup({ maxAttempts: 3 });
    s.index.refuse.add('bad');
    await s.commit('bad');
    await s.commit('good1');
    await s.commit('good2');
    await s.ob.flush(T);
    expect(s.index.ids()).toEqual(['good1@v1', 'good2@v1']);
    const bad = () => [...s.outbox.docs.values()].find((d) => d.memoryId === 'bad');
    expect(bad()).toMatchObject({ attempts: 1, lastError: 'Bad Request: point of bad refused' });
    expect(s.log.lines.at(-1)).toMatchObject({
      level: 'warn',
      fields: { tenantId: T, memoryId: 'bad', entryId: bad()!._id, attempts: 1 },
    });

    // A later commit's flush goes straight past it: one request, for the new entry only.
    s.index.requests.length = 0;
    await s.commit('good3');
    await s.ob.flush(T);
    expect(s.index.requests.map((r) => r.changes.map((c) => (c.op === 'upsert' ? c.doc.memoryId : c.memoryId)))).toEqual([['good3']]);

    // Retried alone, its refusal does not count: the index accepted nothing else in that run, and
    // might be refusing everything.
    const entryId = bad()!._id;
    await s.ob.drain(T);
    expect(bad()!.attempts).toBe(1);
    // Beside entries the index accepts, it counts; the third counted failure sets it aside, kept with its last error.
    await s.commit('good5');
    await s.ob.drain(T);
    expect(bad()!.attempts).toBe(2);
    await s.commit('good6');
    const report = await s.ob.drain(T);
    expect(report).toMatchObject({ failed: 1, poisoned: 1 });
    expect(bad()).toBeUndefined();
    expect(s.poisoned.docs.get(entryId)).toMatchObject({ memoryId: 'bad', attempts: 3, lastError: 'Bad Request: point of bad refused' });
    expect(s.log.lines.at(-1)).toMatchObject({ level: 'error', fields: { tenantId: T, entryId, attempts: 3 } });
    expect(await s.ob.counts()).toEqual({ pending: 0, poisoned: 1 });

    // Set aside, it costs nothing more, and the tenant's next entries go through.
    s.index.requests.length = 0;
    await s.commit('good4', 1, T);
    await s.ob.flush(T);
    await s.ob.drain(T);
    expect(s.index.requests).toHaveLength(1);
    expect(s.index.ids()).toContain('good4@v1');

    // Put back (once whatever refused it is fixed), it is applied at once.
    s.index.refuse.clear();
    const service = createIndexOutboxService({ outbox: s.ob, logger: { warn: () => undefined }, clock: Date.now });
    const retried = await service.retryPoisoned(T);
    expect(retried).toMatchObject({ entries: 1, drain: { applied: 1, failed: 0 } });
    expect(s.index.ids()).toContain('bad@v1');
    expect(await s.ob.counts()).toEqual({ pending: 0, poisoned: 0 });
  });

  it('counts an entry that always times out only while the index serves the entries beside it', async () => {
    const s = await setup({ maxAttempts: 2 });
    s.index.timeOut.add('slow');
    await s.commit('slow');
    await s.commit('fine');
    // A commit's flush reads the timeout as an outage: nothing counted, nothing applied.
    await s.ob.flush(T);
    expect(s.index.ids()).toEqual([]);
    // The drain job isolates: `fine` goes through alone, so `slow`'s failure is its own.
    await s.ob.drain(T);
    expect(s.index.ids()).toEqual(['fine@v1']);
    expect([...s.outbox.docs.values()].map((d) => [d.memoryId, d.attempts])).toEqual([['slow', 1]]);
    // Alone in the outbox, its timeout might be an outage: not counted, kept pending.
    await s.ob.drain(T);
    expect([...s.outbox.docs.values()].map((d) => [d.memoryId, d.attempts])).toEqual([['slow', 1]]);
    await s.commit('next');
    await s.ob.drain(T);
    expect(s.index.ids()).toEqual(['fine@v1', 'next@v1']);
    expect(s.poisoned.docs.size).toBe(1);
  });
});

describe('index outbox: a fault of the whole index is no fault of the entries', () => {
  it('never counts nor sets aside entries while the index refuses every write (a rotated key, a wrong address, a size limit)', async () => {
    const s = await setup({ maxAttempts: 1, batchSize: 2 });
    for (const id of ['a', 'b', 'c']) await s.commit(id);
    s.index.misconfigured = true;
    await s.ob.flush(T);
    for (let run = 0; run < 4; run++) expect(await s.ob.drain(T)).toMatchObject({ outage: true, applied: 0, poisoned: 0 });
    // The batch, then its first entry alone: refused alike, the drain stops.
    expect(s.index.requests).toHaveLength(1 + 4 * 2);
    expect([...s.outbox.docs.values()].map((d) => [d.memoryId, d.attempts])).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
    expect(s.poisoned.docs.size).toBe(0);
    s.index.misconfigured = false;
    expect(await s.ob.drain(T)).toMatchObject({ applied: 3, failed: 0 });
  });

  it('counts a refusal only when the index accepted another entry in the same run', async () => {
    const s = await setup({ maxAttempts: 1, batchSize: 2 });
    // A proxy refusing every request with 400: every entry refused, none accepted.
    s.index.refuse.add('a').add('b');
    await s.commit('a');
    await s.commit('b');
    for (let run = 0; run < 3; run++) await s.ob.drain(T);
    expect([...s.outbox.docs.values()].map((d) => [d.memoryId, d.attempts])).toEqual([
      ['a', 0],
      ['b', 0],
    ]);
    // An accepted entry in an earlier batch of the run makes a later refusal the entry's own.
    s.index.refuse.delete('a');
    await s.commit('c');
    await s.ob.drain(T);
    expect(s.index.ids()).toEqual(['a@v1', 'c@v1']);
    expect(s.poisoned.docs.size).toBe(1);
  });

  it('tries an entry refused uncounted once per flush or drain, not once per round, while the index refuses everything', async () => {
    const s = await setup({ maxAttempts: 1, batchSize: 10 });
    const ids = Array.from({ length: 20 }, (_, i) => `m${i}`);
    for (const id of ids) {
      s.index.refuse.add(id);
      await s.commit(id);
    }
    // The batch of 10, then each of its entries alone, then the same for the next page: 2 × 11.
    await s.ob.flush(T);
    expect(s.index.requests).toHaveLength(22);
    // Tried and not counted: a later commit's flush leaves them to the drain job.
    await s.commit('fresh');
    await s.ob.flush(T);
    expect(s.index.requests).toHaveLength(23);
    await s.ob.drain(T);
    expect(s.index.requests.length).toBeLessThanOrEqual(23 + 3 * 11);
    expect([...s.outbox.docs.values()].every((d) => d.attempts === 0)).toBe(true);
  });
});

describe('index outbox: one drain of a tenant at a time', () => {
  it("leaves a flush's entries to the process that holds the tenant's lease, which applies them before it lets go", async () => {
    const db = new FakeDb();
    const a = await setup({ db });
    const b = await setup({ db });
    // The holder's drain meets a failing entry too: that does not stop it looking for later commits.
    a.index.refuse.add('bad');
    await a.commit('bad');
    await a.commit('first');
    let open!: () => void;
    a.index.gate = new Promise((resolve) => (open = resolve));
    const holding = a.ob.flush(T);
    await vi.waitFor(() => expect(a.index.requests.length).toBeGreaterThan(0));
    // Another process commits meanwhile; its flush finds the lease taken and returns at once.
    await b.commit('second');
    await b.ob.flush(T);
    expect(b.index.requests).toHaveLength(0);
    a.index.gate = null;
    open();
    await holding;
    expect(a.index.ids()).toEqual(['first@v1', 'second@v1']);
    expect([...db.collection('memory_index_outbox').docs.values()].map((d) => [d.memoryId, d.attempts])).toEqual([['bad', 1]]);
    expect(db.collection('memory_index_outbox_leases').docs.size).toBe(0);
  });
});

describe('index outbox: a drain that outlives its lease', () => {
  it('stops before its next request once another process took the tenant: an older version never lands after a newer one', async () => {
    const db = new FakeDb();
    const index = new FakeIndex();
    index.refuse.add('bad');
    // Process a's index requests: the second (the first entry tried alone) hangs past the lease.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let calls = 0;
    const slow = {
      applyChanges: async (t: string, c: readonly IndexChange[]) => {
        if (++calls === 2) await gate;
        return index.applyChanges(t, c);
      },
    };
    const a = await setup({ db, index, sink: slow, leaseMs: 50 });
    const b = await setup({ db, index, leaseMs: 50 });
    await a.commit('bad');
    await a.commit('m1', 1);
    const draining = a.ob.drain(T);
    await vi.waitFor(() => expect(calls).toBe(2));
    await new Promise((resolve) => setTimeout(resolve, 80));
    // The lease has expired: process b commits version 2, takes the tenant and indexes it.
    await b.commit('m1', 2);
    await b.ob.flush(T);
    expect(index.ids()).toEqual(['m1@v2']);
    // a's hung request comes back; a must not go on to send version 1, decided before b's commit.
    open();
    const report = await draining;
    expect(index.ids()).toEqual(['m1@v2']);
    expect(report).toMatchObject({ applied: 0 });
    // Version 1 of m1 was sent once: in a's batch, refused with `bad`, before b's commit.
    const m1v1 = index.requests
      .flatMap((r) => r.changes)
      .filter((c) => c.op === 'upsert' && c.doc.memoryId === 'm1' && c.doc.title === 'v1');
    expect(m1v1).toHaveLength(1);
  });
});

describe('index outbox: a commit never waits behind a drain', () => {
  it('returns from a flush at once while a drain of the tenant runs in this process, whose holder then applies its entries', async () => {
    const s = await setup();
    await s.commit('first');
    let open!: () => void;
    s.index.gate = new Promise((resolve) => (open = resolve));
    const draining = s.ob.drain(T);
    await vi.waitFor(() => expect(s.index.requests.length).toBeGreaterThan(0));
    await s.commit('second');
    const flushed = await Promise.race([
      s.ob.flush(T).then(() => 'returned'),
      new Promise((resolve) => setTimeout(() => resolve('waiting'), 200)),
    ]);
    expect(flushed).toBe('returned');
    s.index.gate = null;
    open();
    await draining;
    expect(s.index.ids()).toEqual(['first@v1', 'second@v1']);
    expect(s.outbox.docs.size).toBe(0);
  });
});

describe('index outbox: a run within its budget', () => {
  it("stops inside one tenant's drain when the budget is spent, leaving the rest for the next run", async () => {
    const index = new FakeIndex();
    const slow = {
      applyChanges: async (t: string, c: readonly IndexChange[]) => {
        await new Promise((resolve) => setTimeout(resolve, 40));
        return index.applyChanges(t, c);
      },
    };
    const s = await setup({ index, sink: slow, batchSize: 1 });
    for (let i = 0; i < 20; i++) await s.commit(`m${String(i).padStart(2, '0')}`);
    const service = createIndexOutboxService({ outbox: s.ob, logger: { warn: () => undefined }, clock: Date.now });
    const started = Date.now();
    const run = await service.drainPending({ budgetMs: 150 });
    expect(Date.now() - started).toBeLessThan(400);
    expect(run).toMatchObject({ remaining: true, outage: false });
    expect(run.applied).toBeGreaterThan(0);
    expect(run.applied).toBeLessThan(10);
    expect(s.outbox.docs.size).toBe(20 - run.applied);
    expect(await service.drainPending({ budgetMs: 60_000 })).toMatchObject({ applied: 20 - run.applied, remaining: false });
  });
});

describe('index outbox: an outage of the Qdrant index (emulated)', () => {
  it('leaves every committed memory searchable once the drain job runs after Qdrant is back', async () => {
    const emulator = new QdrantEmulator();
    const url = await emulator.start();
    try {
      const qdrant = await createQdrantSearchIndex({
        url,
        collection: 'outbox',
        embedder: { model: 'm', dimension: 4, init: async () => {} },
      });
      let down = true;
      const sink = {
        applyChanges: (t: string, c: readonly IndexChange[]) =>
          down
            ? Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'the search index is unavailable (upsert)'))
            : qdrant.applyChanges(t, c),
      };
      const db = new FakeDb();
      const memories = db.collection('memories');
      const outbox = db.collection('memory_index_outbox');
      const ob = await openIndexOutbox(db as unknown as Db, { memories, outbox, inTransaction: db.inTransaction } as never, sink);
      const texts = { m1: 'lighthouse keeper logbook', m2: 'harbour crane schedule', m3: 'ferry timetable winter' };
      let n = 0;
      for (const [id, text] of Object.entries(texts)) {
        memories.docs.set(id, { _id: id, tenantId: T, committedVersion: 1, mergedInto: null });
        await outbox.insertOne(ob.entry(T, id, 'upsert', indexedMemory(id, text), `2030-01-01T00:00:0${n++}.000Z`, 1));
        await ob.flush(T);
      }
      const service = createIndexOutboxService({ outbox: ob, logger: { warn: () => undefined }, clock: Date.now });
      expect(await service.drainPending({ budgetMs: 60_000 })).toMatchObject({ outage: true });
      const found = async (text: string) =>
        (await qdrant.search(T, { text, vector: null, mode: 'hybrid', limit: 5, filters: { namespaces: null } })).hits.map(
          (h) => h.memoryId,
        );
      expect(await found('lighthouse')).toEqual([]);

      down = false;
      expect(await service.drainPending({ budgetMs: 60_000 })).toMatchObject({ outage: false, applied: 3 });
      for (const [id, text] of Object.entries(texts)) expect(await found(text)).toContain(id);
      expect(await ob.counts()).toEqual({ pending: 0, poisoned: 0 });
    } finally {
      await emulator.stop();
    }
  });
});
