/**
 * The collections of the memory aggregate on MongoDB, shared by its four ports (memory store, write
 * queue, usage, idempotency), and the transaction they run in.
 *
 * Multi-document atomicity (accepting a write, committing a consolidation batch, deleting a memory)
 * uses transactions, so the server needs to run as a replica set (a single-node replica set is
 * enough: `mongod --replSet rs0`, then `rs.initiate()`).
 *
 * Collections (indexes are declared here and created at start-up):
 *  - `memories`: `_id` = memory id; HEAD and consolidated state as in the port; `subjects` (multikey)
 *    and `fingerprint` serve candidate lookups.
 *  - `memory_versions`: `_id` = `<memoryId>:<version>`, so a version can never be written twice.
 *  - `memory_writes`: queued writes; `seq` from the `memory_counters` document orders the queue;
 *    unique (memoryId, version). A write is deleted in the transaction that commits its version.
 *  - `memory_index_outbox`: search index work recorded in the same transactions and applied to the
 *    search index (Qdrant) right after commit; what a crash left behind is applied on the next commit.
 *  - `idempotency_keys` (TTL on `expiresAt`), `usage_periods`, `usage_totals`, `memory_settings`.
 */
import { MongoServerError, type ClientSession, type Collection, type Db, type MongoClient } from 'mongodb';
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
  /** The memory's committed version the upserted document describes (0 for removals). */
  version: number;
  op: 'upsert' | 'remove';
  doc: (Omit<IndexedMemory, 'vector'> & { vector: number[] | null }) | null;
  at: string;
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
  counters: Collection<{ _id: string; seq: number }>;
  outbox: Collection<OutboxDoc>;
  idem: Collection<IdempotencyDoc>;
  periods: Collection<UsagePeriodDoc>;
  totals: Collection<UsageTotalsDoc>;
  settings: Collection<SettingsDoc>;
  /** Runs `fn` in one snapshot-read, majority-write transaction. */
  inTransaction<T>(fn: (session: ClientSession) => Promise<T>): Promise<T>;
  /** Adds to the tenant's memory count and stored bytes. */
  adjustTotals(tenantId: string, memoriesDelta: number, bytes: number, session: ClientSession): Promise<unknown>;
}

export const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

/** The aggregate's collections, their indexes created (idempotent). */
export async function openMemoryCollections(client: MongoClient, db: Db): Promise<MemoryCollections> {
  const memories: Collection<MemoryDoc> = db.collection<MemoryDoc>('memories');
  const versions: Collection<VersionDoc> = db.collection<VersionDoc>('memory_versions');
  const writes: Collection<WriteDoc> = db.collection<WriteDoc>('memory_writes');
  const counters: Collection<{ _id: string; seq: number }> = db.collection<{ _id: string; seq: number }>('memory_counters');
  const outbox: Collection<OutboxDoc> = db.collection<OutboxDoc>('memory_index_outbox');
  const idem: Collection<IdempotencyDoc> = db.collection<IdempotencyDoc>('idempotency_keys');
  const periods: Collection<UsagePeriodDoc> = db.collection<UsagePeriodDoc>('usage_periods');
  const totals: Collection<UsageTotalsDoc> = db.collection<UsageTotalsDoc>('usage_totals');
  const settings: Collection<SettingsDoc> = db.collection<SettingsDoc>('memory_settings');

  await memories.createIndexes([
    { key: { tenantId: 1, createdAt: -1, _id: -1 }, name: 'memories_tenant_created' },
    {
      key: { tenantId: 1, namespace: 1, fingerprint: 1 },
      name: 'memories_fingerprint',
      partialFilterExpression: { fingerprint: { $type: 'string' } },
    },
    { key: { tenantId: 1, namespace: 1, subjects: 1, committedAt: -1 }, name: 'memories_subjects' },
    { key: { tenantId: 1, mergedInto: 1 }, name: 'memories_merged', partialFilterExpression: { mergedInto: { $type: 'string' } } },
  ]);
  await versions.createIndexes([{ key: { tenantId: 1, memoryId: 1, version: 1 }, name: 'memory_versions_memory', unique: true }]);
  await writes.createIndexes([
    { key: { tenantId: 1, seq: 1 }, name: 'memory_writes_tenant_seq' },
    { key: { memoryId: 1, version: 1 }, name: 'memory_writes_memory_version', unique: true },
    { key: { seq: 1 }, name: 'memory_writes_seq' },
  ]);
  await outbox.createIndexes([{ key: { tenantId: 1, at: 1 }, name: 'memory_index_outbox_tenant' }]);
  await idem.createIndexes([
    { key: { expiresAt: 1 }, name: 'idempotency_keys_ttl', expireAfterSeconds: 0 },
    { key: { tenantId: 1, key: 1 }, name: 'idempotency_keys_tenant_key', unique: true },
  ]);
  await periods.createIndexes([{ key: { tenantId: 1, period: 1 }, name: 'usage_periods_tenant_period', unique: true }]);

  const inTransaction = <T>(fn: (session: ClientSession) => Promise<T>): Promise<T> =>
    client.withSession((session) =>
      session.withTransaction(() => fn(session), { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } }),
    );

  const adjustTotals = (tenantId: string, memoriesDelta: number, bytes: number, session: ClientSession) =>
    totals.updateOne({ _id: tenantId }, { $inc: { memoryCount: memoriesDelta, storageBytes: bytes } }, { upsert: true, session });

  return { memories, versions, writes, counters, outbox, idem, periods, totals, settings, inTransaction, adjustTotals };
}
