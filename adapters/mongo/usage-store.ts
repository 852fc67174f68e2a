import type { Filter } from 'mongodb';
import type { UsageCounter, UsageStore } from '../../server/ports/usage.js';
import { nextConsumeStep, type ConsumeOutcome } from './consume-retry.js';
import { countUsageDay, isDuplicateKey, type MemoryCollections, type UsagePeriodDoc } from './memory-collections.js';

/** Usage counters on MongoDB: per-period counts in `usage_periods`, memory and byte totals in `usage_totals`. */
export function createMongoUsageStore(c: MemoryCollections): UsageStore {
  const { memories, writes, periods, days, totals } = c;
  return {
    async consume(tenantId, period, counter: UsageCounter, limit, by = 1) {
      const id = `${tenantId}:${period}`;
      if (limit !== null && by > limit) return null;
      // `$lte` never matches a missing field: a period made by the other counter's first request has none of this one.
      const filter: Filter<UsagePeriodDoc> =
        limit === null ? { _id: id } : { _id: id, $or: [{ [counter]: { $lte: limit - by } }, { [counter]: { $exists: false } }] };
      // At most two attempts: an upsert, then (after a duplicate key) a plain update (`consume-retry.ts`).
      let upsert = true;
      for (;;) {
        let outcome: ConsumeOutcome;
        let error: unknown = null;
        try {
          const after = await periods.findOneAndUpdate(
            filter,
            { $inc: { [counter]: by }, $setOnInsert: { tenantId, period } },
            { upsert, returnDocument: 'after', projection: { [counter]: 1 } },
          );
          outcome = after ? { kind: 'counted', value: after[counter] } : { kind: 'not_matched' };
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
          outcome = { kind: 'duplicate_key' };
          error = err;
        }
        const step = nextConsumeStep(upsert, outcome);
        if (step.kind === 'answer') {
          // The day's count follows a counted request (a separate update: a crash between them only undercounts the history).
          if (step.value !== null) await countUsageDay(days, tenantId, counter, by);
          return step.value;
        }
        if (step.kind === 'fail') throw error;
        upsert = step.upsert;
      }
    },

    async snapshot(tenantId, period) {
      const [p, t, pending] = await Promise.all([
        periods.findOne({ _id: `${tenantId}:${period}` }),
        totals.findOne({ _id: tenantId }),
        writes.countDocuments({ tenantId }),
      ]);
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

    async days(tenantId, fromDay, toDay) {
      const found = await days
        .find({ tenantId, day: { $gte: fromDay, $lte: toDay } })
        .sort({ day: 1 })
        .toArray();
      return found.map((d) => ({ day: d.day, writes: d.writes ?? 0, reads: d.reads ?? 0, searches: d.searches ?? 0 }));
    },

    async namespaceTotals(tenantId, namespaces) {
      const inScope = { tenantId, namespace: { $in: [...namespaces] } };
      const [live, pending] = await Promise.all([
        memories
          .aggregate<{ n: number; bytes: number }>([
            { $match: { ...inScope, mergedInto: null } },
            { $group: { _id: null, n: { $sum: 1 }, bytes: { $sum: '$sizeBytes' } } },
          ])
          .toArray(),
        writes.countDocuments(inScope),
      ]);
      return { memoryCount: live[0]?.n ?? 0, storageBytes: live[0]?.bytes ?? 0, pendingWrites: pending };
    },
  };
}
