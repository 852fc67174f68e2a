/**
 * The collections of the memory aggregate on MongoDB, shared by its four ports (memory store, write
 * queue, usage, idempotency), and the transaction they run in.
 *
 * Multi-document atomicity (accepting a write, committing a consolidation batch, deleting a memory)
 * uses transactions, so the server needs to run as a replica set (a single-node replica set is
 * enough: `mongod --replSet rs0`, then `rs.initiate()`).
 *
 * Collections (created at start-up, with the indexes declared here):
 *  - `memories`: `_id` = memory id; HEAD and consolidated state as in the port; `subjects` (multikey)
 *    and `fingerprint` serve candidate lookups.
 *  - `memory_versions`: `_id` = `<memoryId>:<version>`, so a version can never be written twice.
 *  - `memory_writes`: queued writes; `seq`, the tenant's queue position, orders them (unique per
 *    tenant); unique (memoryId, version). A write is deleted in the transaction that commits its version.
 *  - `memory_counters`: one queue position counter per tenant (`write-counters.ts`).
 *  - `memory_index_outbox`: search index work recorded in the same transactions and applied to the
 *    search index (Qdrant) right after commit; what an outage or a crash left behind is applied by the
 *    recurring drain job. Its other collections and indexes are `index-outbox.ts`'s.
 *  - `idempotency_keys` (TTL on `expiresAt`), `usage_periods`, `usage_days`, `usage_totals`, `memory_settings`.
 */
import { MongoServerError, type ClientSession, type Collection, type Db, type MongoClient } from 'mongodb';
import { dropIndexesIfPresent, ensureCollections } from './collections-setup.js';
import { migrateGlobalWriteCounter, type CounterDoc } from './write-counters.js';
import type { ContradictionPolicy, MemoryContent, MemoryRecord, MemoryVersionRecord } from '../../server/ports/memories.js';
import type { IndexedMemory } from '../../server/ports/search-index.js';
import type { QueuedWrite } from '../../server/ports/write-queue.js';

export interface MemoryDoc extends Omit<MemoryRecord, 'id' | 'version' | 'committedVersion'> {
  _id: string;
  headVersion: number;
  committedVersion: number;
  fingerprint: string | null;
  subjects: string[];
  committedAt: string | null;
}

export interface VersionDoc extends MemoryVersionRecord {
  _id: string;
  tenantId: string;
}

export interface WriteDoc {
  _id: string;
  seq: number;
  tenantId: string;
  memoryId: string;
  namespace: string;
  version: number;
  kind: QueuedWrite['kind'];
  content: MemoryContent;
  rolledBackTo: number | null;
  acceptedAt: string;
}

export interface OutboxDoc {
  _id: string;
  tenantId: string;
  memoryId: string;
  /** The memory's committed version the upserted document describes; for a removal, the one it left the index at (0 when queued by an earlier release). */
  version: number;
  op: 'upsert' | 'remove';
  doc: (Omit<IndexedMemory, 'vector'> & { vector: number[] | null }) | null;
  at: string;
  /** Counted failed attempts (absent on entries written before they were counted: read as 0). */
  attempts?: number;
  lastError?: string | null;
  lastAttemptAt?: string | null;
}

export interface IdempotencyDoc {
  _id: string;
  tenantId: string;
  key: string;
  requestHash: string;
  response: unknown;
  createdAt: string;
  expiresAt: Date;
}

export interface UsagePeriodDoc {
  _id: string;
  tenantId: string;
  period: string;
  writes: number;
  reads: number;
  searches: number;
}

/** One UTC day's counters of a tenant (`_id`: `<tenantId>:<YYYY-MM-DD>`), for the dashboard's history. */
export interface UsageDayDoc {
  _id: string;
  tenantId: string;
  day: string;
  writes?: number;
  reads?: number;
  searches?: number;
}

/** Adds to today's (UTC) counter of a tenant; outside any transaction unless `session` is given. */
export function countUsageDay(
  days: Collection<UsageDayDoc>,
  tenantId: string,
  counter: 'writes' | 'reads' | 'searches',
  by: number,
  session?: ClientSession,
) {
  const day = new Date().toISOString().slice(0, 10);
  return days.updateOne(
    { _id: `${tenantId}:${day}` },
    { $inc: { [counter]: by }, $setOnInsert: { tenantId, day } },
    { upsert: true, ...(session ? { session } : {}) },
  );
}

export interface UsageTotalsDoc {
  _id: string;
  memoryCount: number;
  storageBytes: number;
}

export interface SettingsDoc {
  _id: string;
  contradictionPolicy: ContradictionPolicy;
  updatedAt: string;
}

export interface MemoryCollections {
  memories: Collection<MemoryDoc>;
  versions: Collection<VersionDoc>;
  writes: Collection<WriteDoc>;
  counters: Collection<CounterDoc>;
  outbox: Collection<OutboxDoc>;
  idem: Collection<IdempotencyDoc>;
  periods: Collection<UsagePeriodDoc>;
  /** Per-day counters, moved with `periods` (the dashboard's 30-day history). */
  days: Collection<UsageDayDoc>;
  totals: Collection<UsageTotalsDoc>;
  settings: Collection<SettingsDoc>;
  /** Runs `fn` in one snapshot-read, majority-write transaction. */
  inTransaction<T>(fn: (session: ClientSession) => Promise<T>): Promise<T>;
  /** Adds to the tenant's memory count and stored bytes. */
  adjustTotals(tenantId: string, memoriesDelta: number, bytes: number, session: ClientSession): Promise<unknown>;
}

export const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

/** Every collection of the aggregate, by its field in `MemoryCollections`. */
export const MEMORY_COLLECTION_NAMES = {
  memories: 'memories',
  versions: 'memory_versions',
  writes: 'memory_writes',
  counters: 'memory_counters',
  outbox: 'memory_index_outbox',
  idem: 'idempotency_keys',
  periods: 'usage_periods',
  days: 'usage_days',
  totals: 'usage_totals',
  settings: 'memory_settings',
} as const;

/** Indexes of the global-counter layout: the queue is no longer ordered across tenants. */
const RETIRED_WRITE_INDEXES = ['memory_writes_seq', 'memory_writes_tenant_seq'];

/**
 * The aggregate's collections, created with their indexes (idempotent), and the queue of an earlier
 * layout brought over (`migrateGlobalWriteCounter`) before any write is accepted.
 */
export async function openMemoryCollections(client: MongoClient, db: Db): Promise<MemoryCollections> {
  const n = MEMORY_COLLECTION_NAMES;
  await ensureCollections(db, Object.values(n));
  const memories: Collection<MemoryDoc> = db.collection<MemoryDoc>(n.memories);
  const versions: Collection<VersionDoc> = db.collection<VersionDoc>(n.versions);
  const writes: Collection<WriteDoc> = db.collection<WriteDoc>(n.writes);
  const counters: Collection<CounterDoc> = db.collection<CounterDoc>(n.counters);
  const outbox: Collection<OutboxDoc> = db.collection<OutboxDoc>(n.outbox);
  const idem: Collection<IdempotencyDoc> = db.collection<IdempotencyDoc>(n.idem);
  const periods: Collection<UsagePeriodDoc> = db.collection<UsagePeriodDoc>(n.periods);
  const days: Collection<UsageDayDoc> = db.collection<UsageDayDoc>(n.days);
  const totals: Collection<UsageTotalsDoc> = db.collection<UsageTotalsDoc>(n.totals);
  const settings: Collection<SettingsDoc> = db.collection<SettingsDoc>(n.settings);

  await memories.createIndexes([
    { key: { tenantId: 1, createdAt: -1, _id: -1 }, name: 'memories_tenant_created' },
    {
      key: { tenantId: 1, namespace: 1, fingerprint: 1 },
      name: 'memories_fingerprint',
      partialFilterExpression: { fingerprint: { $type: 'string' } },
    },
    { key: { tenantId: 1, namespace: 1, subjects: 1, committedAt: -1 }, name: 'memories_subjects' },
    { key: { tenantId: 1, mergedInto: 1 }, name: 'memories_merged', partialFilterExpression: { mergedInto: { $type: 'string' } } },
    // The memory browser's equality filters (list, total, bulk deletion by filter), newest first.
    ...(['sensitivity', 'status', 'contradictionStatus', 'type', 'namespace'] as const).map((field) => ({
      key: { tenantId: 1, [field]: 1, createdAt: -1, _id: -1 },
      name: `memories_list_${field}`,
    })),
  ]);
  await versions.createIndexes([{ key: { tenantId: 1, memoryId: 1, version: 1 }, name: 'memory_versions_memory', unique: true }]);
  await writes.createIndexes([
    { key: { tenantId: 1, seq: 1 }, name: 'memory_writes_tenant_position', unique: true },
    { key: { memoryId: 1, version: 1 }, name: 'memory_writes_memory_version', unique: true },
  ]);
  await dropIndexesIfPresent(writes, RETIRED_WRITE_INDEXES);
  await migrateGlobalWriteCounter(counters, writes);
  await idem.createIndexes([
    { key: { expiresAt: 1 }, name: 'idempotency_keys_ttl', expireAfterSeconds: 0 },
    { key: { tenantId: 1, key: 1 }, name: 'idempotency_keys_tenant_key', unique: true },
  ]);
  await periods.createIndexes([{ key: { tenantId: 1, period: 1 }, name: 'usage_periods_tenant_period', unique: true }]);
  await days.createIndexes([{ key: { tenantId: 1, day: 1 }, name: 'usage_days_tenant_day', unique: true }]);

  const inTransaction = <T>(fn: (session: ClientSession) => Promise<T>): Promise<T> =>
    client.withSession((session) =>
      session.withTransaction(() => fn(session), { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } }),
    );

  const adjustTotals = (tenantId: string, memoriesDelta: number, bytes: number, session: ClientSession) =>
    totals.updateOne({ _id: tenantId }, { $inc: { memoryCount: memoriesDelta, storageBytes: bytes } }, { upsert: true, session });

  return { memories, versions, writes, counters, outbox, idem, periods, days, totals, settings, inTransaction, adjustTotals };
}
