import type { ClientSession, Filter, Sort } from 'mongodb';
import type {
  EnrichmentLogRecord,
  KnowledgeObjectRecord,
  KnowledgeObjectStore,
  ObjectListQuery,
  StorageQuota,
} from '../../server/ports/knowledge.js';
import type { JsonValue } from '../../server/services/knowledge/model.js';
import { countMoves, storageQuotaExceeded, type CountKey } from '../../server/storage-rules/knowledge-storage.js';
import type { CountDoc, KnowledgeCollections, LogDoc, ObjectDoc } from './knowledge-collections.js';
import type { MemoryCollections } from './memory-collections.js';

function toDoc(r: KnowledgeObjectRecord): ObjectDoc {
  const { id, fields, ...rest } = r;
  return { ...rest, _id: id, fields: JSON.stringify(fields) };
}

function toRecord(d: ObjectDoc): KnowledgeObjectRecord {
  const { _id, fields, ...rest } = d;
  return { ...rest, id: _id, fields: JSON.parse(fields) as KnowledgeObjectRecord['fields'] };
}

const jsonOrNull = (v: JsonValue | null): string | null => (v === null ? null : JSON.stringify(v));
const parseOrNull = (text: string | null): JsonValue | null => (text === null ? null : (JSON.parse(text) as JsonValue));

function toLogRecord(d: LogDoc): EnrichmentLogRecord {
  const { _id, seq: _s, candidateValue, previousValue, ...rest } = d;
  return { ...rest, id: _id, candidateValue: parseOrNull(candidateValue), previousValue: parseOrNull(previousValue) };
}

/**
 * The list's filter without and with the cursor's condition, and its order (the port's two orders).
 * The filter names only fields the count documents share, so it selects the total's counts too.
 */
function listQuery(tenantId: string, type: string, q: ObjectListQuery) {
  const filter: Filter<ObjectDoc> & Filter<CountDoc> = { tenantId, type };
  if (q.status !== undefined) filter.status = q.status;
  const byCompleteness = q.completenessLt !== undefined;
  if (byCompleteness) filter.completenessScore = { $lt: q.completenessLt };
  const sort: Sort = byCompleteness ? { completenessScore: 1, createdAt: 1, _id: 1 } : { createdAt: 1, _id: 1 };
  const a = q.after;
  if (!a) return { filter, page: filter as Filter<ObjectDoc>, sort };
  // "After the cursor" in the list's order, as an $or of ranges of the same index.
  const afterTime: Filter<ObjectDoc>[] = [{ createdAt: { $gt: a.createdAt } }, { createdAt: a.createdAt, _id: { $gt: a.id } }];
  let after: Filter<ObjectDoc>[] = afterTime;
  if (byCompleteness) {
    if (a.completenessScore === undefined) throw new Error('a completeness-ordered list needs a cursor with completenessScore');
    const score = a.completenessScore;
    after = [{ completenessScore: { $gt: score } }, ...afterTime.map((c) => ({ completenessScore: score, ...c }))];
  }
  return { filter, page: { $and: [filter as Filter<ObjectDoc>, { $or: after }] } as Filter<ObjectDoc>, sort };
}

/**
 * Knowledge objects and their enrichment log on MongoDB. Writes run in the memory aggregate's
 * transaction helper and move the same `usage_totals` document (`adjustTotals`, bytes only): objects
 * count toward the tenant's stored bytes, not its memory count; the list counts move in the same
 * transaction. The quota is checked against the total read inside the transaction, so two writes
 * racing past it make one of them retry.
 */
export function createMongoKnowledgeObjectStore(
  c: Pick<KnowledgeCollections, 'objects' | 'counts' | 'log'>,
  m: Pick<MemoryCollections, 'inTransaction' | 'adjustTotals' | 'totals'>,
): KnowledgeObjectStore {
  const { objects, counts, log } = c;

  const exceeds = async (tenantId: string, quota: StorageQuota, delta: number, session: ClientSession) => {
    if (quota.storageBytes === null || delta <= 0) return false;
    const stored = (await m.totals.findOne({ _id: tenantId }, { session, projection: { storageBytes: 1 } }))?.storageBytes ?? 0;
    return storageQuotaExceeded(quota, stored, delta);
  };
  const moveBytes = async (tenantId: string, delta: number, session: ClientSession) => {
    if (delta !== 0) await m.adjustTotals(tenantId, 0, delta, session);
  };

  const moveCounts = async (tenantId: string, type: string, before: CountKey | null, after: CountKey | null, session: ClientSession) => {
    for (const m of countMoves(before, after)) {
      const _id = JSON.stringify([tenantId, type, m.status, m.completenessScore]);
      await counts.updateOne(
        { _id },
        { $inc: { n: m.by }, $setOnInsert: { tenantId, type, status: m.status, completenessScore: m.completenessScore } },
        { upsert: true, session },
      );
      if (m.by < 0) await counts.deleteOne({ _id, n: { $lte: 0 } }, { session });
    }
  };

  return {
    async create(record, quota) {
      return m.inTransaction(async (session) => {
        if (await exceeds(record.tenantId, quota, record.sizeBytes, session)) return 'quota_exceeded' as const;
        await objects.insertOne(toDoc(record), { session });
        await moveBytes(record.tenantId, record.sizeBytes, session);
        await moveCounts(record.tenantId, record.type, null, record, session);
        return 'ok' as const;
      });
    },

    async get(tenantId, id) {
      const d = await objects.findOne({ _id: id, tenantId });
      return d ? toRecord(d) : null;
    },

    async list(tenantId, type, q) {
      const { filter, page, sort } = listQuery(tenantId, type, q);
      const [docs, summed] = await Promise.all([
        q.limit > 0
          ? objects
              .find(page)
              .sort(sort)
              .skip(q.offset ?? 0)
              .limit(q.limit)
              .toArray()
          : [],
        counts.aggregate<{ n: number }>([{ $match: filter }, { $group: { _id: null, n: { $sum: '$n' } } }]).toArray(),
      ]);
      return { objects: docs.map(toRecord), total: summed[0]?.n ?? 0 };
    },

    async countByType(tenantId) {
      const rows = await counts
        .aggregate<{ _id: string; n: number }>([{ $match: { tenantId } }, { $group: { _id: '$type', n: { $sum: '$n' } } }])
        .toArray();
      return Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r._id, r.n]));
    },

    async update(next, expectRevision, quota, entries = []) {
      if (next.revision !== expectRevision + 1) {
        throw new Error(`knowledge object ${next.id}: revision ${next.revision} does not follow ${expectRevision}`);
      }
      return m.inTransaction(async (session) => {
        const tenantId = next.tenantId;
        const now = await objects.findOne(
          { _id: next.id, tenantId },
          { session, projection: { type: 1, revision: 1, sizeBytes: 1, status: 1, completenessScore: 1 } },
        );
        if (!now) return 'not_found' as const;
        if (now.revision !== expectRevision) return 'conflict' as const;
        const delta = next.sizeBytes - now.sizeBytes;
        if (await exceeds(tenantId, quota, delta, session)) return 'quota_exceeded' as const;
        // The type and creation time of an object never change; the rest is the service's new state.
        const { _id, tenantId: _t, type: _ty, createdAt: _c, ...state } = toDoc(next);
        const replaced = await objects.updateOne({ _id, tenantId, revision: expectRevision }, { $set: state }, { session });
        // Inside the snapshot a concurrent write surfaces as a write conflict (and a retry), so a miss is a bug.
        if (replaced.matchedCount !== 1) throw new Error(`knowledge object ${next.id} moved inside its own transaction`);
        if (entries.length > 0) {
          await log.insertMany(
            entries.map((e, seq) => {
              const { id, candidateValue, previousValue, ...rest } = e;
              return {
                ...rest,
                _id: id,
                tenantId,
                objectId: next.id,
                candidateValue: jsonOrNull(candidateValue),
                previousValue: jsonOrNull(previousValue),
                seq,
              };
            }),
            { session },
          );
        }
        await moveBytes(tenantId, delta, session);
        await moveCounts(tenantId, now.type, now, next, session);
        return 'ok' as const;
      });
    },

    async delete(tenantId, id) {
      return m.inTransaction(async (session) => {
        const removed = await objects.findOneAndDelete({ _id: id, tenantId }, { session });
        if (!removed) return null;
        await log.deleteMany({ tenantId, objectId: id }, { session });
        await moveBytes(tenantId, -removed.sizeBytes, session);
        await moveCounts(tenantId, removed.type, removed, null, session);
        return toRecord(removed);
      });
    },

    async findByIdentity(tenantId, type, identityKey, limit) {
      if (limit <= 0) return []; // MongoDB reads a limit of 0 as none at all
      const docs = await objects.find({ tenantId, type, identityKey }).sort({ createdAt: 1, _id: 1 }).limit(limit).toArray();
      return docs.map(toRecord);
    },

    async findByIdentityKeys(tenantId, identityKeys, limit) {
      const keys = identityKeys.filter((k) => k !== '');
      if (keys.length === 0 || limit <= 0) return [];
      const docs = await objects
        .find({ tenantId, identityKey: { $in: keys } }, { projection: { _id: 1, type: 1, identityKey: 1, doNotEnrich: 1, enrichment: 1 } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({
        id: d._id,
        type: d.type,
        identityKey: d.identityKey,
        doNotEnrich: d.doNotEnrich,
        enrichment: d.enrichment ?? null,
      }));
    },

    async usesVersion(tenantId, type, version) {
      return (await objects.findOne({ tenantId, type, schemaVersion: version }, { projection: { _id: 1 } })) !== null;
    },

    async listNotAtVersion(tenantId, type, version, afterId, limit) {
      if (limit <= 0) return [];
      const filter: Filter<ObjectDoc> = { tenantId, type, schemaVersion: { $ne: version } };
      if (afterId !== null) filter._id = { $gt: afterId };
      return (await objects.find(filter).sort({ _id: 1 }).limit(limit).toArray()).map(toRecord);
    },

    async listAll(tenantId, after, limit) {
      if (limit <= 0) return [];
      const filter: Filter<ObjectDoc> =
        after === null ? { tenantId } : { tenantId, $or: [{ type: { $gt: after.type } }, { type: after.type, _id: { $gt: after.id } }] };
      return (await objects.find(filter).sort({ type: 1, _id: 1 }).limit(limit).toArray()).map(toRecord);
    },

    async log(tenantId, objectId, page) {
      const filter: Filter<LogDoc> = { tenantId, objectId };
      if (page.runId !== null) filter.runId = page.runId;
      if (page.after !== null) {
        const from = await log.findOne({ _id: page.after, tenantId, objectId }, { projection: { createdAt: 1, seq: 1 } });
        if (!from) return null;
        // "After the entry" in the log's order, as an $or of ranges of the same index (tenantId, objectId, createdAt, seq, _id).
        filter.$or = [
          { createdAt: { $gt: from.createdAt } },
          { createdAt: from.createdAt, seq: { $gt: from.seq } },
          { createdAt: from.createdAt, seq: from.seq, _id: { $gt: from._id } },
        ];
      }
      if (page.limit <= 0) return []; // MongoDB reads a limit of 0 as none at all
      const docs = await log.find(filter).sort({ createdAt: 1, seq: 1, _id: 1 }).limit(page.limit).toArray();
      return docs.map(toLogRecord);
    },
  };
}
