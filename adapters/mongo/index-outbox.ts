import { randomUUID } from 'node:crypto';
import type { AnyBulkWriteOperation, Collection, Db, Filter } from 'mongodb';
import type { IndexOutbox as IndexOutboxPort, OutboxDrainReport } from '../../server/ports/index-outbox.js';
import type { IndexedMemory, SearchIndex } from '../../server/ports/search-index.js';
import { dropIndexesIfPresent, ensureCollections } from './collections-setup.js';
import { isDuplicateKey, type MemoryCollections, type OutboxDoc } from './memory-collections.js';
import { drainTenant, type DrainReport, type OutboxEntry, type OutboxEntryStore, type OutboxLog } from './outbox-drain.js';
import type { DrainMode } from './outbox-rules.js';

/** Where index rows go (the search index of the server profile); null keeps work in the outbox. */
export type MongoIndexSink = Pick<SearchIndex, 'applyChanges'> | null;

/** An entry set aside after repeated failures (`memory_index_outbox_poisoned`). */
export interface PoisonedDoc extends OutboxDoc {
  poisonedAt: string;
}

/** Who is draining a tenant's outbox (`memory_index_outbox_leases`; expired documents are removed by TTL). */
interface LeaseDoc {
  _id: string;
  owner: string;
  until: Date;
}

export interface IndexOutboxOptions {
  /** Counted failures after which an entry is set aside (`INDEX_OUTBOX_MAX_ATTEMPTS`, default 5). */
  maxAttempts?: number;
  /** Entries per index request (default 200). */
  batchSize?: number;
  /** How long a drain holds its tenant without renewing (default 60 s; renewed before every batch and every entry tried alone). */
  leaseMs?: number;
  log?: OutboxLog;
}

/**
 * The search index outbox on MongoDB: the memory store records index work in its transactions
 * (`entry`) and flushes it after commit (`flush`); the drain job applies what is left (the port).
 */
export interface IndexOutbox extends IndexOutboxPort {
  entry(tenantId: string, memoryId: string, op: OutboxDoc['op'], doc: IndexedMemory | null, at: string, version?: number): OutboxDoc;
  /** Applies the tenant's new entries; never throws (a failure is logged and left to the drain job). */
  flush(tenantId: string): Promise<void>;
}

export const DEFAULT_OUTBOX_MAX_ATTEMPTS = 5;

/** The outbox's own collections besides `memory_index_outbox` (created at start-up, like the aggregate's). */
export const OUTBOX_COLLECTIONS = { poisoned: 'memory_index_outbox_poisoned', leases: 'memory_index_outbox_leases' } as const;
/** Rounds of one flush: a round ends with a look for entries committed while it held the lease. */
const MAX_ROUNDS = 10;

const toEntry = (d: OutboxDoc): OutboxEntry => ({
  id: d._id,
  tenantId: d.tenantId,
  memoryId: d.memoryId,
  op: d.op,
  version: d.version,
  doc: d.doc ? { ...d.doc, vector: d.doc.vector ? Float32Array.from(d.doc.vector) : null } : null,
  at: d.at,
  attempts: d.attempts ?? 0,
});

const emptyReport = (): OutboxDrainReport => ({
  applied: 0,
  dropped: 0,
  failed: 0,
  poisoned: 0,
  outage: false,
  busy: false,
  timedOut: false,
});

/**
 * Opens the outbox: its collections and indexes (the drain's keyset order, the distinct scan of tenants with
 * pending entries), the collection of set-aside entries and the per-tenant drain leases.
 *
 * One drain of a tenant runs at a time across every process (a lease document), so two processes
 * never apply a tenant's entries out of order (an older upsert landing after a newer one) or count
 * one failure twice. A flush that finds the lease taken returns at once: the holder looks for new
 * entries after it lets go, and sees the flusher's, which were committed before it asked.
 */
export async function openIndexOutbox(
  db: Db,
  c: Pick<MemoryCollections, 'memories' | 'outbox' | 'inTransaction'>,
  sink: MongoIndexSink,
  options: IndexOutboxOptions = {},
): Promise<IndexOutbox> {
  const { memories, outbox, inTransaction } = c;
  await ensureCollections(db, [OUTBOX_COLLECTIONS.poisoned, OUTBOX_COLLECTIONS.leases]);
  const poisoned: Collection<PoisonedDoc> = db.collection<PoisonedDoc>(OUTBOX_COLLECTIONS.poisoned);
  const leases: Collection<LeaseDoc> = db.collection<LeaseDoc>(OUTBOX_COLLECTIONS.leases);
  const maxAttempts = options.maxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS;
  const batchSize = options.batchSize ?? 200;
  const leaseMs = options.leaseMs ?? 60_000;
  const log = options.log;

  // (tenantId, at, _id): every batch of a drain is one range of it, and the scan of tenants reads
  // one key per tenant. The first outbox index, (tenantId, at), cannot order ties and is dropped.
  await outbox.createIndexes([{ key: { tenantId: 1, at: 1, _id: 1 }, name: 'memory_index_outbox_tenant_at' }]);
  await dropIndexesIfPresent(outbox, ['memory_index_outbox_tenant']);
  await poisoned.createIndexes([{ key: { tenantId: 1, at: 1, _id: 1 }, name: 'memory_index_outbox_poisoned_tenant' }]);
  await leases.createIndexes([{ key: { until: 1 }, name: 'memory_index_outbox_leases_ttl', expireAfterSeconds: 0 }]);

  const store: OutboxEntryStore = {
    async next(tenantId, after, limit, mode) {
      const filter: Filter<OutboxDoc> = { tenantId };
      // Never tried: an entry refused without being counted (nothing else accepted that run) keeps
      // attempts 0 but has a lastAttemptAt, and waits for the drain job rather than every flush.
      if (mode === 'fresh') filter.lastAttemptAt = null;
      if (after) filter.$or = [{ at: { $gt: after.at } }, { at: after.at, _id: { $gt: after.id } }];
      return (await outbox.find(filter).sort({ at: 1, _id: 1 }).limit(limit).toArray()).map(toEntry);
    },
    async states(tenantId, memoryIds) {
      const found = await memories
        .find({ tenantId, _id: { $in: [...memoryIds] } }, { projection: { _id: 1, committedVersion: 1, mergedInto: 1 } })
        .toArray();
      return new Map(found.map((m) => [m._id, { committedVersion: m.committedVersion, merged: m.mergedInto !== null }]));
    },
    async settle(entryIds) {
      await outbox.deleteMany({ _id: { $in: [...entryIds] } });
    },
    async recordFailures(failures) {
      const at = new Date().toISOString();
      const kept: AnyBulkWriteOperation<OutboxDoc>[] = failures
        .filter((f) => !f.poisoned)
        .map((f) => ({
          updateOne: { filter: { _id: f.entry.id }, update: { $set: { attempts: f.attempts, lastError: f.error, lastAttemptAt: at } } },
        }));
      if (kept.length > 0) await outbox.bulkWrite(kept, { ordered: false });
      const aside = failures.filter((f) => f.poisoned);
      if (aside.length === 0) return;
      // Moved in one transaction: an entry is pending or set aside, never both nor neither.
      await inTransaction(async (session) => {
        for (const f of aside) {
          const doc = await outbox.findOneAndDelete({ _id: f.entry.id }, { session });
          if (!doc) continue;
          await poisoned.replaceOne(
            { _id: doc._id },
            { ...doc, attempts: f.attempts, lastError: f.error, lastAttemptAt: at, poisonedAt: at },
            { upsert: true, session },
          );
        }
      });
    },
  };

  async function acquire(tenantId: string): Promise<string | null> {
    const owner = randomUUID();
    const now = Date.now();
    try {
      // Matches a free (expired) lease; when another holds it the upsert's insert collides on _id.
      await leases.updateOne(
        { _id: tenantId, until: { $lte: new Date(now) } },
        { $set: { owner, until: new Date(now + leaseMs) } },
        { upsert: true },
      );
      return owner;
    } catch (err) {
      if (isDuplicateKey(err)) return null;
      throw err;
    }
  }

  const renew = async (tenantId: string, owner: string) =>
    (await leases.updateOne({ _id: tenantId, owner }, { $set: { until: new Date(Date.now() + leaseMs) } })).matchedCount === 1;

  async function drainRounds(tenantId: string, mode: DrainMode, deadline: number | undefined): Promise<OutboxDrainReport> {
    const total = emptyReport();
    if (!sink) return total;
    for (let round = 0, m = mode; round < MAX_ROUNDS; round++, m = 'fresh') {
      if (deadline !== undefined && Date.now() >= deadline) return { ...total, timedOut: true };
      const owner = await acquire(tenantId);
      if (!owner) return { ...total, busy: true };
      let r: DrainReport;
      try {
        const keepGoing = () => renew(tenantId, owner);
        r = await drainTenant(store, sink, tenantId, { mode: m, maxAttempts, batchSize, keepGoing, deadline, log });
      } finally {
        // A lease that cannot be given back expires.
        await leases.deleteOne({ _id: tenantId, owner }).catch(() => undefined);
      }
      total.applied += r.applied;
      total.dropped += r.dropped;
      total.failed += r.failed;
      total.poisoned += r.poisoned;
      if (r.outage || r.stopped || r.timedOut) return { ...total, outage: r.outage, timedOut: r.timedOut };
      // Entries committed while this drain held the lease, whose own flush found it taken: another
      // round, of entries never tried (one that failed in this round waits for the drain job).
      if (!(await outbox.findOne({ tenantId, lastAttemptAt: null }, { projection: { _id: 1 } }))) return total;
    }
    return total;
  }

  // One drain per tenant at a time in this process (the lease does it across processes). A flush that
  // finds one running or queued returns at once, as it does when another process holds the lease: a
  // user's request or commit never waits behind the drain job. It marks the tenant, and the last drain
  // looks again before it lets go (its last round's look for entries never tried may have come just
  // before the flusher's commit). The mark is read and the drain let go in one synchronous step, so no
  // flush falls between them.
  const running = new Map<string, Promise<unknown>>();
  const holders = new Map<string, number>();
  const flushedMeanwhile = new Set<string>();

  function letGo(tenantId: string) {
    const left = (holders.get(tenantId) ?? 1) - 1;
    if (left > 0) return void holders.set(tenantId, left);
    holders.delete(tenantId);
    flushedMeanwhile.delete(tenantId);
  }

  async function untilSettled(tenantId: string, mode: DrainMode, deadline: number | undefined): Promise<OutboxDrainReport> {
    const total = emptyReport();
    try {
      for (let round = 0, m = mode; ; round++, m = 'fresh') {
        flushedMeanwhile.delete(tenantId);
        const r = await drainRounds(tenantId, m, deadline);
        total.applied += r.applied;
        total.dropped += r.dropped;
        total.failed += r.failed;
        total.poisoned += r.poisoned;
        if (r.outage || r.busy || r.timedOut || round + 1 >= MAX_ROUNDS || !flushedMeanwhile.has(tenantId))
          return { ...total, outage: r.outage, busy: r.busy, timedOut: r.timedOut };
      }
    } finally {
      letGo(tenantId);
    }
  }

  function exclusive(tenantId: string, mode: DrainMode, deadline?: number): Promise<OutboxDrainReport> {
    holders.set(tenantId, (holders.get(tenantId) ?? 0) + 1);
    const run = (running.get(tenantId) ?? Promise.resolve()).then(() => untilSettled(tenantId, mode, deadline));
    const settled = run.catch(() => undefined);
    running.set(tenantId, settled);
    void settled.then(() => {
      if (running.get(tenantId) === settled) running.delete(tenantId);
    });
    return run;
  }

  return {
    entry: (tenantId, memoryId, op, doc, at, version = 0) => ({
      _id: `${tenantId}:${memoryId}:${op}:${at}:${randomUUID()}`,
      tenantId,
      memoryId,
      version,
      op,
      doc: doc ? { ...doc, vector: doc.vector ? Array.from(doc.vector) : null } : null,
      at,
      attempts: 0,
      lastError: null,
      lastAttemptAt: null,
    }),

    async flush(tenantId) {
      if (holders.has(tenantId)) {
        flushedMeanwhile.add(tenantId);
        return;
      }
      await exclusive(tenantId, 'fresh').catch((err: unknown) =>
        log?.warn(
          { tenantId, err: err instanceof Error ? err.message : String(err) },
          'search index outbox flush failed; the drain job retries it',
        ),
      );
    },

    drain: (tenantId, options) =>
      exclusive(
        tenantId,
        'all',
        options?.budgetMs !== undefined && Number.isFinite(options.budgetMs) ? Date.now() + options.budgetMs : undefined,
      ),

    async tenantsWithPending(limit) {
      // A distinct scan of the (tenantId, at, _id) index (a $sort on its whole key, then a $group on its
      // first field taking only $first: MongoDB's DISTINCT_SCAN), read through a cursor and cut at
      // `limit`: `distinct` would answer every tenant in one reply, which fails past 16 MB.
      const rows = await outbox
        .aggregate<{ _id: string }>([
          { $sort: { tenantId: 1, at: 1, _id: 1 } },
          { $group: { _id: '$tenantId', at: { $first: '$at' } } },
          { $limit: limit },
        ])
        .toArray();
      return rows.map((r) => r._id).sort();
    },

    async counts() {
      // From the collections' metadata: a scrape or a readiness probe never scans a long outbox.
      const [pending, aside] = await Promise.all([outbox.estimatedDocumentCount(), poisoned.estimatedDocumentCount()]);
      return { pending, poisoned: aside };
    },

    async retryPoisoned(tenantId) {
      const filter: Filter<PoisonedDoc> = tenantId === null ? {} : { tenantId };
      const tenants = new Set<string>();
      let entries = 0;
      for (;;) {
        const page = await poisoned.find(filter).sort({ tenantId: 1, at: 1, _id: 1 }).limit(100).toArray();
        if (page.length === 0) break;
        await inTransaction(async (session) => {
          for (const { poisonedAt: _p, ...doc } of page) {
            await outbox.replaceOne({ _id: doc._id }, { ...doc, attempts: 0, lastAttemptAt: null }, { upsert: true, session });
            await poisoned.deleteOne({ _id: doc._id }, { session });
          }
        });
        for (const d of page) tenants.add(d.tenantId);
        entries += page.length;
      }
      return { entries, tenants: [...tenants] };
    },

    async clear() {
      const [a, b] = await Promise.all([outbox.deleteMany({}), poisoned.deleteMany({})]);
      return a.deletedCount + b.deletedCount;
    },
  };
}
