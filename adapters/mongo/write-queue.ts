import type { ClientSession } from 'mongodb';
import type { EnqueueRequest, EnqueueResult, QueuedWrite, WriteQueue, WriteReceipt } from '../../server/ports/write-queue.js';
import { decideWrite, type WriteSnapshot } from '../../server/storage-rules/write-acceptance.js';
import { countUsageDay, type MemoryCollections, type WriteDoc } from './memory-collections.js';
import { nextWritePosition } from './write-counters.js';

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

/**
 * The write queue on MongoDB: `enqueue` is one transaction in which `decideWrite` decides over the
 * documents it reads and its effects are written (memory head, queued write, usage, idempotency).
 */
export function createMongoWriteQueue(c: MemoryCollections): WriteQueue {
  const { memories, versions, writes, counters, idem, periods, days, totals, inTransaction, adjustTotals } = c;

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
    const target =
      req.kind === 'rollback' && row
        ? await versions.findOne({ tenantId, memoryId: req.memoryId, version: req.targetVersion }, { session })
        : null;
    return {
      idempotency: () =>
        seen
          ? { requestHash: seen.requestHash, expiresAt: seen.expiresAt.toISOString(), receipt: () => seen.response as WriteReceipt }
          : null,
      writesUsed: () => used,
      totals: () => total,
      head: () => row,
      versionContent: () => target,
    };
  }

  return {
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
            {
              $set: {
                ...q.content,
                sensitivity: w.sensitivity,
                headVersion: q.version,
                sizeBytes: w.head.sizeBytes,
                updatedAt: q.acceptedAt,
              },
              $inc: { pendingCount: 1 },
            },
            { session },
          );
        }
        if (w.usage.memories !== 0 || w.usage.bytes !== 0) await adjustTotals(tenantId, w.usage.memories, w.usage.bytes, session);
        const seq = await nextWritePosition(counters, tenantId, session);
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
        await countUsageDay(days, tenantId, 'writes', 1, session);
        const i = w.idempotency;
        if (i) {
          await idem.replaceOne(
            { _id: `${tenantId}:${i.key}` },
            {
              tenantId,
              key: i.key,
              requestHash: i.requestHash,
              response: i.receipt,
              createdAt: i.createdAt,
              expiresAt: new Date(i.expiresAt),
            },
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
      // Queue positions are per tenant, so tenants are compared by when their oldest write (their first
      // by position) was accepted. Sorted as the (tenantId, seq) index and grouped by its first field
      // with only `$first`, MongoDB reads one index entry per tenant (a DISTINCT_SCAN), not every write.
      const rows = await writes
        .aggregate<{ _id: string; first: string }>([
          { $sort: { tenantId: 1, seq: 1 } },
          { $group: { _id: '$tenantId', first: { $first: '$acceptedAt' } } },
          { $sort: { first: 1, _id: 1 } },
          { $limit: limit },
        ])
        .toArray();
      return rows.map((r) => r._id);
    },

    async pendingCount(tenantId) {
      return writes.countDocuments({ tenantId });
    },
  };
}
