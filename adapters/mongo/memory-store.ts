import type { ClientSession, Filter } from 'mongodb';
import {
  ConsolidationConflictError,
  DEFAULT_MEMORY_SETTINGS,
  type MemoryCandidate,
  type MemoryRecord,
  type MemorySettings,
  type MemoryStore,
  type MemoryVersionRecord,
  type VersionSnapshot,
} from '../../server/ports/memories.js';
import { appliedWriteProjection, memoryUpdateProjection } from '../../server/storage-rules/commit-projection.js';
import { deletionUsage } from '../../server/storage-rules/memory-deletion.js';
import type { IndexOutbox } from './index-outbox.js';
import { NEWEST_FIRST, keysetBefore } from './keyset.js';
import { memoryFilterOf } from './memory-filter.js';
import { isDuplicateKey, type MemoryCollections, type MemoryDoc, type VersionDoc } from './memory-collections.js';

function toRecord(d: MemoryDoc): MemoryRecord {
  const { _id, headVersion, committedVersion, fingerprint: _f, subjects: _s, committedAt: _c, ...rest } = d;
  return { ...rest, id: _id, version: headVersion, committedVersion };
}

/** The fields `getHits` reads. */
const HIT_PROJECTION = {
  namespace: 1,
  agentId: 1,
  title: 1,
  content: 1,
  tags: 1,
  metadata: 1,
  headVersion: 1,
  committedVersion: 1,
  createdAt: 1,
  injectionFlagged: 1,
} as const;

function toVersion(d: VersionDoc): MemoryVersionRecord {
  const { _id, tenantId: _t, ...rest } = d;
  return rest;
}

/**
 * Memory records, versions, settings and the consolidation commit on MongoDB. Index work goes through
 * the outbox in the same transaction and is flushed to the search index after commit.
 */
export function createMongoMemoryStore(c: MemoryCollections, indexOutbox: IndexOutbox): MemoryStore {
  const { memories, versions, writes, outbox, settings, inTransaction, adjustTotals } = c;

  const versionDoc = (tenantId: string, memoryId: string, version: number, s: VersionSnapshot): VersionDoc => ({
    _id: `${memoryId}:${version}`,
    tenantId,
    memoryId,
    version,
    ...s,
  });

  async function purgeMemory(tenantId: string, memoryId: string, at: string, session: ClientSession) {
    const doc = await memories.findOneAndDelete({ _id: memoryId, tenantId }, { session });
    if (!doc) return null;
    await versions.deleteMany({ tenantId, memoryId }, { session });
    await writes.deleteMany({ tenantId, memoryId }, { session });
    await outbox.insertOne(indexOutbox.entry(tenantId, memoryId, 'remove', null, at, doc.committedVersion), { session });
    return doc;
  }

  return {
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
      const found = await memories.find({ tenantId, _id: { $in: [...memoryIds] } }, { projection: HIT_PROJECTION }).toArray();
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
      const filter = memoryFilterOf(tenantId, q);
      if (!filter) return { items: [], total: 0 };
      const [total, docs] = await Promise.all([
        memories.countDocuments(filter),
        memories.find(filter).sort({ createdAt: -1, _id: -1 }).skip(q.offset).limit(q.limit).toArray(),
      ]);
      return { items: docs.map(toRecord), total };
    },

    async count(tenantId, q) {
      const filter = memoryFilterOf(tenantId, q);
      return filter ? memories.countDocuments(filter) : 0;
    },

    async matchingIds(tenantId, q, limit) {
      const filter = memoryFilterOf(tenantId, q);
      if (!filter || limit <= 0) return [];
      const docs = await memories
        .find(filter, { projection: { _id: 1 } })
        .sort({ createdAt: -1, _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => d._id);
    },

    async listAfter(tenantId, after, limit, options) {
      if (limit <= 0) return [];
      const filter: Filter<MemoryDoc> = { tenantId, ...(options?.includeMerged ? {} : { mergedInto: null }), ...keysetBefore(after) };
      return (await memories.find(filter).sort(NEWEST_FIRST).limit(limit).toArray()).map(toRecord);
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
      if (deleted) await indexOutbox.flush(tenantId);
      return deleted;
    },

    async findCandidates(tenantId, q) {
      const exclude = [...(q.excludeIds ?? [])];
      const base: Filter<MemoryDoc> = {
        tenantId,
        namespace: q.namespace,
        status: 'active',
        mergedInto: null,
        pendingCount: 0,
        committedVersion: { $gt: 0 },
      };
      if (exclude.length > 0) base._id = { $nin: exclude };
      const found = new Map<string, MemoryCandidate>();
      const projection = {
        _id: 1,
        namespace: 1,
        title: 1,
        content: 1,
        tags: 1,
        type: 1,
        agentId: 1,
        committedVersion: 1,
        injectionFlagged: 1,
        fingerprint: 1,
      };
      const toCandidate = (
        d: Pick<
          MemoryDoc,
          '_id' | 'namespace' | 'title' | 'content' | 'tags' | 'type' | 'agentId' | 'committedVersion' | 'injectionFlagged' | 'fingerprint'
        >,
      ): MemoryCandidate => ({
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
        for (const d of await memories
          .find({ ...base, fingerprint: q.fingerprint }, { projection })
          .sort({ committedAt: -1 })
          .limit(q.limit)
          .toArray())
          found.set(d._id, toCandidate(d));
      }
      // Keys in the caller's order (most specific first), each a bounded newest-first index scan.
      for (const subject of [...new Set(q.subjects ?? [])].slice(0, 16)) {
        if (found.size >= q.limit) break;
        for (const d of await memories
          .find({ ...base, subjects: subject }, { projection })
          .sort({ committedAt: -1 })
          .limit(q.limit)
          .toArray()) {
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
              const removed = await writes.deleteOne(
                { tenantId, memoryId: op.memoryId, version: op.version, seq: op.writeId },
                { session },
              );
              if (removed.deletedCount !== 1)
                throw new ConsolidationConflictError(`write ${op.writeId} of memory ${op.memoryId} is no longer queued`);
              const current = await memories.findOne(
                { _id: op.memoryId, tenantId, committedVersion: op.version - 1, pendingCount: { $gt: 0 } },
                { session },
              );
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
              if (op.usage && (op.usage.memories !== 0 || op.usage.bytes !== 0))
                await adjustTotals(tenantId, op.usage.memories, op.usage.bytes, session);
            } else {
              const p = memoryUpdateProjection(op, plan.at);
              const s = p.set;
              const updated = await memories.updateOne(
                {
                  _id: op.memoryId,
                  tenantId,
                  committedVersion: op.expectCommittedVersion,
                  headVersion: op.expectCommittedVersion,
                  pendingCount: 0,
                },
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
                throw new ConsolidationConflictError(
                  `memory ${op.memoryId} changed since consolidation planned (expected version ${op.expectCommittedVersion}, nothing queued)`,
                );
              }
              if (op.snapshot && p.snapshotVersion !== null)
                await versions.insertOne(versionDoc(tenantId, op.memoryId, p.snapshotVersion, op.snapshot), { session });
              committed.set(op.memoryId, p.version);
            }
          }
          const entries = [
            ...plan.indexRemovals.map((id) => indexOutbox.entry(tenantId, id, 'remove', null, plan.at, committed.get(id) ?? 0)),
            ...plan.indexUpserts.map((doc) =>
              indexOutbox.entry(tenantId, doc.memoryId, 'upsert', doc, plan.at, committed.get(doc.memoryId) ?? 0),
            ),
          ];
          if (entries.length > 0) await outbox.insertMany(entries, { session });
        });
      } catch (err) {
        if (isDuplicateKey(err)) throw new ConsolidationConflictError('a version of this plan was already committed');
        throw err;
      }
      await indexOutbox.flush(tenantId);
    },

    async getSettings(tenantId): Promise<MemorySettings> {
      const d = await settings.findOne({ _id: tenantId });
      return d ? { contradictionPolicy: d.contradictionPolicy, updatedAt: d.updatedAt } : { ...DEFAULT_MEMORY_SETTINGS };
    },

    async putSettings(tenantId, s, at) {
      await settings.updateOne(
        { _id: tenantId },
        { $set: { contradictionPolicy: s.contradictionPolicy, updatedAt: at } },
        { upsert: true },
      );
      return { contradictionPolicy: s.contradictionPolicy, updatedAt: at };
    },
  };
}
