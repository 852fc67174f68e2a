/**
 * The memory aggregate on MongoDB: memory store, write queue, usage and idempotency ports.
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
import { MongoServerError, type ClientSession, type Collection, type Db, type Filter, type MongoClient } from 'mongodb';
import type { IdempotencyRecord, IdempotencyStore } from '../../server/ports/idempotency.js';
import {
  ConsolidationConflictError,
  DEFAULT_MEMORY_SETTINGS,
  type ContradictionPolicy,
  type MemoryCandidate,
  type MemoryContent,
  type MemoryRecord,
  type MemorySettings,
  type MemoryStore,
  type MemoryVersionRecord,
  type VersionSnapshot,
} from '../../server/ports/memories.js';
import type { IndexedMemory, SearchIndex } from '../../server/ports/search-index.js';
import type { UsageCounter, UsageStore } from '../../server/ports/usage.js';
import type { EnqueueRequest, EnqueueResult, QueuedWrite, WriteQueue, WriteReceipt } from '../../server/ports/write-queue.js';
import { appliedWriteProjection, memoryUpdateProjection } from '../../server/storage-rules/commit-projection.js';
import { deletionUsage } from '../../server/storage-rules/memory-deletion.js';
import { decideWrite, type WriteSnapshot } from '../../server/storage-rules/write-acceptance.js';

interface MemoryDoc extends Omit<MemoryRecord, 'id' | 'version' | 'committedVersion'> {
  _id: string;
  headVersion: number;
  committedVersion: number;
  fingerprint: string | null;
  subjects: string[];
  committedAt: string | null;
}

interface VersionDoc extends MemoryVersionRecord {
  _id: string;
  tenantId: string;
}

interface WriteDoc {
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

interface OutboxDoc {
  _id: string;
  tenantId: string;
  memoryId: string;
  /** The memory's committed version the upserted document describes (0 for removals). */
  version: number;
  op: 'upsert' | 'remove';
  doc: (Omit<IndexedMemory, 'vector'> & { vector: number[] | null }) | null;
  at: string;
}

interface IdempotencyDoc {
  _id: string;
  tenantId: string;
  key: string;
  requestHash: string;
  response: unknown;
  createdAt: string;
  expiresAt: Date;
}

interface UsagePeriodDoc {
  _id: string;
  tenantId: string;
  period: string;
  writes: number;
  reads: number;
  searches: number;
}

interface UsageTotalsDoc {
  _id: string;
  memoryCount: number;
  storageBytes: number;
}

interface SettingsDoc {
  _id: string;
  contradictionPolicy: ContradictionPolicy;
  updatedAt: string;
}

/** Where index rows go (the search index of the server profile); null keeps work in the outbox. */
export type MongoIndexSink = Pick<SearchIndex, 'upsert' | 'remove'> | null;

export interface MongoMemoryPorts {
  memories: MemoryStore;
  writeQueue: WriteQueue;
  usage: UsageStore;
  idempotency: IdempotencyStore;
}

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

function toRecord(d: MemoryDoc): MemoryRecord {
  const { _id, headVersion, committedVersion, fingerprint: _f, subjects: _s, committedAt: _c, ...rest } = d;
  return { ...rest, id: _id, version: headVersion, committedVersion };
}

/** The fields `getHits` reads. */
const HIT_PROJECTION = {
  namespace: 1, agentId: 1, title: 1, content: 1, tags: 1, metadata: 1, headVersion: 1, committedVersion: 1, createdAt: 1, injectionFlagged: 1,
} as const;

function toVersion(d: VersionDoc): MemoryVersionRecord {
  const { _id, tenantId: _t, ...rest } = d;
  return rest;
}

function toWrite(d: WriteDoc): QueuedWrite {
  return {
    id: d.seq,
    tenantId: d.tenantId,
    memoryId: d.memoryId,
    namespace: d.namespace,
    version: d.version,
    kind: d.kind,
    content: d.content,
    rolledBackTo: d.rolledBackTo,
    acceptedAt: d.acceptedAt,
  };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export async function createMongoMemoryPorts(client: MongoClient, db: Db, index: MongoIndexSink): Promise<MongoMemoryPorts> {
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
    { key: { tenantId: 1, namespace: 1, fingerprint: 1 }, name: 'memories_fingerprint', partialFilterExpression: { fingerprint: { $type: 'string' } } },
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
    client.withSession((session) => session.withTransaction(() => fn(session), { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } }));

  const adjustTotals = (tenantId: string, memoriesDelta: number, bytes: number, session: ClientSession) =>
    totals.updateOne({ _id: tenantId }, { $inc: { memoryCount: memoriesDelta, storageBytes: bytes } }, { upsert: true, session });

  const nextSeq = async (session: ClientSession) => {
    const doc = await counters.findOneAndUpdate({ _id: 'memory_writes' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after', session });
    return doc!.seq;
  };

  const versionDoc = (tenantId: string, memoryId: string, version: number, s: VersionSnapshot): VersionDoc => ({
    _id: `${memoryId}:${version}`,
    tenantId,
    memoryId,
    version,
    ...s,
  });

  const outboxDoc = (tenantId: string, memoryId: string, op: OutboxDoc['op'], doc: IndexedMemory | null, at: string, version = 0): OutboxDoc => ({
    _id: `${tenantId}:${memoryId}:${op}:${at}:${Math.random().toString(36).slice(2)}`,
    tenantId,
    memoryId,
    version,
    op,
    doc: doc ? { ...doc, vector: doc.vector ? Array.from(doc.vector) : null } : null,
    at,
  });

  const flushing = new Map<string, Promise<void>>();

  /**
   * Applies the tenant's outbox to the search index, oldest first, one flush per tenant at a time in
   * this process. Each entry is checked against the memory's current state, so a replayed or stale
   * entry can never put back what a later commit or a delete took out: a memory that is gone or merged
   * is removed; an upsert is applied only while it describes the current committed version, and
   * removed again if the memory was deleted meanwhile. Entries stay on failure (next commit retries).
   */
  function flushOutbox(tenantId: string): Promise<void> {
    if (!index) return Promise.resolve();
    const previous = flushing.get(tenantId) ?? Promise.resolve();
    const run = previous.then(async () => {
      const state = async (memoryId: string) =>
        memories.findOne({ _id: memoryId, tenantId }, { projection: { _id: 1, committedVersion: 1, mergedInto: 1 } });
      for (;;) {
        const batch = await outbox.find({ tenantId }).sort({ at: 1, _id: 1 }).limit(200).toArray();
        for (const e of batch) {
          const current = await state(e.memoryId);
          if (!current || current.mergedInto !== null) await index.remove(tenantId, e.memoryId);
          else if (e.op === 'upsert' && e.doc && e.version === current.committedVersion) {
            await index.upsert(tenantId, { ...e.doc, vector: e.doc.vector ? Float32Array.from(e.doc.vector) : null });
            const after = await state(e.memoryId);
            if (!after || after.mergedInto !== null) await index.remove(tenantId, e.memoryId);
          }
          await outbox.deleteOne({ _id: e._id });
        }
        if (batch.length < 200) return;
      }
    });
    const settled = run.catch(() => undefined);
    flushing.set(tenantId, settled);
    void settled.then(() => {
      if (flushing.get(tenantId) === settled) flushing.delete(tenantId);
    });
    return settled;
  }

  async function purgeMemory(tenantId: string, memoryId: string, at: string, session: ClientSession) {
    const doc = await memories.findOneAndDelete({ _id: memoryId, tenantId }, { session });
    if (!doc) return null;
    await versions.deleteMany({ tenantId, memoryId }, { session });
    await writes.deleteMany({ tenantId, memoryId }, { session });
    await outbox.insertOne(outboxDoc(tenantId, memoryId, 'remove', null, at), { session });
    return doc;
  }

  /**
   * What `decideWrite` may ask of the store for this request, read up front inside the transaction
   * (MongoDB reads are asynchronous, the rule is not): only what the request's kind and plan can need.
   */
  async function readWriteSnapshot(tenantId: string, req: EnqueueRequest, session: ClientSession): Promise<WriteSnapshot> {
    const q = req.quota;
    const seen = req.idempotency ? await idem.findOne({ _id: `${tenantId}:${req.idempotency.key}` }, { session }) : null;
    const used = q.writes !== null ? ((await periods.findOne({ _id: `${tenantId}:${q.period}` }, { session }))?.writes ?? 0) : 0;
    const total =
      q.memories !== null || q.storageBytes !== null
        ? ((await totals.findOne({ _id: tenantId }, { session })) ?? { memoryCount: 0, storageBytes: 0 })
        : { memoryCount: 0, storageBytes: 0 };
    const row = req.kind === 'create' ? null : await memories.findOne({ _id: req.memoryId, tenantId }, { session });
    const target = req.kind === 'rollback' && row ? await versions.findOne({ tenantId, memoryId: req.memoryId, version: req.targetVersion }, { session }) : null;
    return {
      idempotency: () =>
        seen ? { requestHash: seen.requestHash, expiresAt: seen.expiresAt.toISOString(), receipt: () => seen.response as WriteReceipt } : null,
      writesUsed: () => used,
      totals: () => total,
      head: () => row,
      versionContent: () => target,
    };
  }

  const memoryStore: MemoryStore = {
    async get(tenantId, memoryId) {
      const d = await memories.findOne({ _id: memoryId, tenantId });
      return d ? toRecord(d) : null;
    },

    async getMany(tenantId, memoryIds) {
      if (memoryIds.length === 0) return [];
      return (await memories.find({ tenantId, _id: { $in: [...memoryIds] } }).toArray()).map(toRecord);
    },

    async getHits(tenantId, memoryIds) {
      if (memoryIds.length === 0) return [];
      const found = await memories
        .find({ tenantId, _id: { $in: [...memoryIds] } }, { projection: HIT_PROJECTION })
        .toArray();
      return found.map((d) => ({
        id: d._id,
        namespace: d.namespace,
        agentId: d.agentId,
        title: d.title,
        content: d.content,
        tags: d.tags,
        metadata: d.metadata,
        version: d.headVersion,
        committedVersion: d.committedVersion,
        createdAt: d.createdAt,
        injectionFlagged: d.injectionFlagged,
      }));
    },

    async list(tenantId, q) {
      if (q.namespaces !== null && q.namespaces.length === 0) return { items: [], total: 0 };
      const filter: Filter<MemoryDoc> = { tenantId };
      if (q.namespaces !== null) filter.namespace = { $in: [...q.namespaces] };
      if (q.text) {
        const re = new RegExp(escapeRegex(q.text), 'i');
        filter.$or = [{ title: re }, { content: re }];
      }
      if (q.type) filter.type = q.type;
      if (q.sensitivity) filter.sensitivity = q.sensitivity;
      if (q.status) filter.status = q.status;
      if (q.contradiction) filter.contradictionStatus = q.contradiction;
      if (q.from || q.to) filter.createdAt = { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lte: q.to } : {}) };
      if (!q.includeMerged) filter.mergedInto = null;
      const [total, docs] = await Promise.all([
        memories.countDocuments(filter),
        memories.find(filter).sort({ createdAt: -1, _id: -1 }).skip(q.offset).limit(q.limit).toArray(),
      ]);
      return { items: docs.map(toRecord), total };
    },

    async listVersions(tenantId, memoryId) {
      return (await versions.find({ tenantId, memoryId }).sort({ version: 1 }).toArray()).map(toVersion);
    },

    async getVersion(tenantId, memoryId, version) {
      const d = await versions.findOne({ tenantId, memoryId, version });
      return d ? toVersion(d) : null;
    },

    async delete(tenantId, memoryId) {
      const at = new Date().toISOString();
      const deleted = await inTransaction(async (session) => {
        const doc = await purgeMemory(tenantId, memoryId, at, session);
        if (!doc) return false;
        const usage = deletionUsage(doc);
        if (usage) await adjustTotals(tenantId, usage.memories, usage.bytes, session);
        const merged = await memories.find({ tenantId, mergedInto: memoryId }, { session, projection: { _id: 1 } }).toArray();
        for (const m of merged) await purgeMemory(tenantId, m._id, at, session);
        return true;
      });
      if (deleted) await flushOutbox(tenantId);
      return deleted;
    },

    async findCandidates(tenantId, q) {
      const exclude = [...(q.excludeIds ?? [])];
      const base: Filter<MemoryDoc> = { tenantId, namespace: q.namespace, status: 'active', mergedInto: null, pendingCount: 0, committedVersion: { $gt: 0 } };
      if (exclude.length > 0) base._id = { $nin: exclude };
      const found = new Map<string, MemoryCandidate>();
      const projection = { _id: 1, namespace: 1, title: 1, content: 1, tags: 1, type: 1, agentId: 1, committedVersion: 1, injectionFlagged: 1, fingerprint: 1 };
      const toCandidate = (d: Pick<MemoryDoc, '_id' | 'namespace' | 'title' | 'content' | 'tags' | 'type' | 'agentId' | 'committedVersion' | 'injectionFlagged' | 'fingerprint'>): MemoryCandidate => ({
        id: d._id,
        namespace: d.namespace,
        title: d.title,
        content: d.content,
        tags: d.tags,
        type: d.type,
        agentId: d.agentId,
        committedVersion: d.committedVersion,
        injectionFlagged: d.injectionFlagged,
        fingerprint: d.fingerprint,
      });
      if (q.fingerprint) {
        for (const d of await memories.find({ ...base, fingerprint: q.fingerprint }, { projection }).sort({ committedAt: -1 }).limit(q.limit).toArray()) found.set(d._id, toCandidate(d));
      }
      // Keys in the caller's order (most specific first), each a bounded newest-first index scan.
      for (const subject of [...new Set(q.subjects ?? [])].slice(0, 16)) {
        if (found.size >= q.limit) break;
        for (const d of await memories.find({ ...base, subjects: subject }, { projection }).sort({ committedAt: -1 }).limit(q.limit).toArray()) {
          if (found.size >= q.limit) break;
          if (!found.has(d._id)) found.set(d._id, toCandidate(d));
        }
      }
      return [...found.values()];
    },

    async commitConsolidation(tenantId, plan) {
      try {
        await inTransaction(async (session) => {
          const committed = new Map<string, number>();
          for (const op of plan.ops) {
            if (op.kind === 'apply') {
              const removed = await writes.deleteOne({ tenantId, memoryId: op.memoryId, version: op.version, seq: op.writeId }, { session });
              if (removed.deletedCount !== 1) throw new ConsolidationConflictError(`write ${op.writeId} of memory ${op.memoryId} is no longer queued`);
              const current = await memories.findOne({ _id: op.memoryId, tenantId, committedVersion: op.version - 1, pendingCount: { $gt: 0 } }, { session });
              if (!current) throw new ConsolidationConflictError(`memory ${op.memoryId} is not at version ${op.version - 1}`);
              const p = appliedWriteProjection(op, plan.at);
              await memories.updateOne(
                { _id: op.memoryId, tenantId },
                {
                  $set: {
                    committedVersion: p.committedVersion,
                    ...(current.headVersion === op.version ? p.atHeadOnly : {}),
                    ...p.set,
                    subjects: [...p.subjects],
                    updatedAt: p.at,
                    committedAt: p.at,
                  },
                  $inc: { pendingCount: p.pendingDelta },
                },
                { session },
              );
              await versions.insertOne(versionDoc(tenantId, op.memoryId, op.version, op.snapshot), { session });
              committed.set(op.memoryId, op.version);
              if (op.usage && (op.usage.memories !== 0 || op.usage.bytes !== 0)) await adjustTotals(tenantId, op.usage.memories, op.usage.bytes, session);
            } else {
              const p = memoryUpdateProjection(op, plan.at);
              const s = p.set;
              const updated = await memories.updateOne(
                { _id: op.memoryId, tenantId, committedVersion: op.expectCommittedVersion, headVersion: op.expectCommittedVersion, pendingCount: 0 },
                {
                  $set: {
                    headVersion: p.version,
                    committedVersion: p.version,
                    status: s.status,
                    contradictionStatus: s.contradictionStatus,
                    contradictionPolicy: s.contradictionPolicy,
                    conflictsWith: s.conflictsWith,
                    supersededBy: s.supersededBy,
                    updatedAt: p.at,
                    ...(p.dropSubjects ? { subjects: [] } : {}),
                  },
                },
                { session },
              );
              if (updated.matchedCount !== 1) {
                throw new ConsolidationConflictError(`memory ${op.memoryId} changed since consolidation planned (expected version ${op.expectCommittedVersion}, nothing queued)`);
              }
              if (op.snapshot && p.snapshotVersion !== null) await versions.insertOne(versionDoc(tenantId, op.memoryId, p.snapshotVersion, op.snapshot), { session });
              committed.set(op.memoryId, p.version);
            }
          }
          const entries = [
            ...plan.indexRemovals.map((id) => outboxDoc(tenantId, id, 'remove', null, plan.at)),
            ...plan.indexUpserts.map((doc) => outboxDoc(tenantId, doc.memoryId, 'upsert', doc, plan.at, committed.get(doc.memoryId) ?? 0)),
          ];
          if (entries.length > 0) await outbox.insertMany(entries, { session });
        });
      } catch (err) {
        if (isDuplicateKey(err)) throw new ConsolidationConflictError('a version of this plan was already committed');
        throw err;
      }
      await flushOutbox(tenantId);
    },

    async getSettings(tenantId): Promise<MemorySettings> {
      const d = await settings.findOne({ _id: tenantId });
      return d ? { contradictionPolicy: d.contradictionPolicy, updatedAt: d.updatedAt } : { ...DEFAULT_MEMORY_SETTINGS };
    },

    async putSettings(tenantId, s, at) {
      await settings.updateOne({ _id: tenantId }, { $set: { contradictionPolicy: s.contradictionPolicy, updatedAt: at } }, { upsert: true });
      return { contradictionPolicy: s.contradictionPolicy, updatedAt: at };
    },
  };

  const writeQueue: WriteQueue = {
    async enqueue(tenantId, req) {
      return inTransaction(async (session): Promise<EnqueueResult> => {
        const decision = decideWrite(tenantId, req, await readWriteSnapshot(tenantId, req, session));
        if (decision.kind === 'answer') return decision.result;
        const w = decision.write;
        const q = w.queued;
        if (w.head.kind === 'insert') {
          const { id, version, ...memory } = w.head.memory;
          await memories.insertOne({ _id: id, headVersion: version, ...memory }, { session });
        } else {
          await memories.updateOne(
            { _id: q.memoryId, tenantId, headVersion: w.head.fromVersion },
            { $set: { ...q.content, sensitivity: w.sensitivity, headVersion: q.version, sizeBytes: w.head.sizeBytes, updatedAt: q.acceptedAt }, $inc: { pendingCount: 1 } },
            { session },
          );
        }
        if (w.usage.memories !== 0 || w.usage.bytes !== 0) await adjustTotals(tenantId, w.usage.memories, w.usage.bytes, session);
        const seq = await nextSeq(session);
        await writes.insertOne(
          {
            _id: `${q.memoryId}:${q.version}`,
            seq,
            tenantId,
            memoryId: q.memoryId,
            namespace: q.namespace,
            version: q.version,
            kind: q.kind,
            content: q.content,
            rolledBackTo: q.rolledBackTo,
            acceptedAt: q.acceptedAt,
          },
          { session },
        );
        await periods.updateOne(
          { _id: `${tenantId}:${w.usage.period}` },
          { $inc: { writes: 1 }, $setOnInsert: { tenantId, period: w.usage.period, reads: 0, searches: 0 } },
          { upsert: true, session },
        );
        const i = w.idempotency;
        if (i) {
          await idem.replaceOne(
            { _id: `${tenantId}:${i.key}` },
            { tenantId, key: i.key, requestHash: i.requestHash, response: i.receipt, createdAt: i.createdAt, expiresAt: new Date(i.expiresAt) },
            { upsert: true, session },
          );
        }
        return { kind: 'accepted', receipt: w.receipt };
      });
    },

    async peek(tenantId, limit) {
      return (await writes.find({ tenantId }).sort({ seq: 1 }).limit(limit).toArray()).map(toWrite);
    },

    async tenantsWithPending(limit) {
      const rows = await writes
        .aggregate<{ _id: string; first: number }>([{ $group: { _id: '$tenantId', first: { $min: '$seq' } } }, { $sort: { first: 1 } }, { $limit: limit }])
        .toArray();
      return rows.map((r) => r._id);
    },

    async pendingCount(tenantId) {
      return writes.countDocuments({ tenantId });
    },
  };

  const usage: UsageStore = {
    async consume(tenantId, period, counter: UsageCounter, limit, by = 1) {
      const id = `${tenantId}:${period}`;
      if (limit !== null && by > limit) return null;
      // `$lte` never matches a missing field: a period made by the other counter's first request has none of this one.
      const filter: Filter<UsagePeriodDoc> =
        limit === null ? { _id: id } : { _id: id, $or: [{ [counter]: { $lte: limit - by } }, { [counter]: { $exists: false } }] };
      try {
        const after = await periods.findOneAndUpdate(
          filter,
          { $inc: { [counter]: by }, $setOnInsert: { tenantId, period } },
          { upsert: true, returnDocument: 'after', projection: { [counter]: 1 } },
        );
        return after ? after[counter] : null;
      } catch (err) {
        // The counter exists but is at its limit: the upsert tried to insert a duplicate _id.
        if (isDuplicateKey(err)) return null;
        throw err;
      }
    },

    async snapshot(tenantId, period) {
      const [p, t, pending] = await Promise.all([periods.findOne({ _id: `${tenantId}:${period}` }), totals.findOne({ _id: tenantId }), writes.countDocuments({ tenantId })]);
      return {
        period,
        writes: p?.writes ?? 0,
        reads: p?.reads ?? 0,
        searches: p?.searches ?? 0,
        memoryCount: t?.memoryCount ?? 0,
        storageBytes: t?.storageBytes ?? 0,
        pendingWrites: pending,
      };
    },

    async namespaceTotals(tenantId, namespaces) {
      const inScope = { tenantId, namespace: { $in: [...namespaces] } };
      const [live, pending] = await Promise.all([
        memories
          .aggregate<{ n: number; bytes: number }>([{ $match: { ...inScope, mergedInto: null } }, { $group: { _id: null, n: { $sum: 1 }, bytes: { $sum: '$sizeBytes' } } }])
          .toArray(),
        writes.countDocuments(inScope),
      ]);
      return { memoryCount: live[0]?.n ?? 0, storageBytes: live[0]?.bytes ?? 0, pendingWrites: pending };
    },
  };

  const idempotency: IdempotencyStore = {
    async get(tenantId, key, now) {
      const d = await idem.findOne({ _id: `${tenantId}:${key}`, expiresAt: { $gt: new Date(now) } });
      return d ? toIdempotency(d) : null;
    },
    async putIfAbsent(tenantId, record) {
      const id = `${tenantId}:${record.key}`;
      const doc: IdempotencyDoc = {
        _id: id,
        tenantId,
        key: record.key,
        requestHash: record.requestHash,
        response: record.response,
        createdAt: record.createdAt,
        expiresAt: new Date(record.expiresAt),
      };
      try {
        // Replaces only an expired record (the TTL monitor may not have removed it yet).
        const res = await idem.replaceOne({ _id: id, expiresAt: { $lte: new Date(record.createdAt) } }, doc, { upsert: true });
        if (res.matchedCount + res.upsertedCount === 1) return null;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const existing = await idem.findOne({ _id: id });
      return existing ? toIdempotency(existing) : null;
    },
    async purgeExpired(now) {
      return (await idem.deleteMany({ expiresAt: { $lte: new Date(now) } })).deletedCount;
    },
  };

  return { memories: memoryStore, writeQueue, usage, idempotency };
}

function toIdempotency(d: IdempotencyDoc): IdempotencyRecord {
  return { key: d.key, requestHash: d.requestHash, response: d.response, createdAt: d.createdAt, expiresAt: d.expiresAt.toISOString() };
}
