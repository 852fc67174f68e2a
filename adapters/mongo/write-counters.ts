import type { ClientSession, Collection } from 'mongodb';

/**
 * Queue positions of accepted writes (`QueuedWrite.id`, stored as `seq`): one counter document per
 * tenant in `memory_counters`, incremented inside the enqueue transaction.
 *
 * What the order must guarantee (server/ports/write-queue.ts): a tenant's writes are applied in the
 * order they were accepted, and so a memory's versions in the order they were reserved. A counter
 * bumped in the transaction gives exactly that: two writes of one tenant both update its counter, so
 * they commit one after the other and the later commit holds the higher position; consolidation can
 * never read position n + 1 and later see position n appear.
 *
 * Per tenant rather than global: writes of different tenants share no document, so they never
 * conflict (one global counter made concurrent writes of every tenant retry their transactions). A
 * tenant's own writes gain no new conflict: each already increments the tenant's usage period.
 * A key that needs no shared document (a timestamp, an ObjectId) would not do: it is fixed before its
 * transaction commits, so a smaller key can become visible after consolidation took a larger one, and
 * with clock skew between hosts a memory's version n + 1 could queue before version n.
 */
export interface CounterDoc {
  _id: string;
  seq: number;
}

/** The counter document of a tenant's write queue. */
export const writeCounterId = (tenantId: string) => `writes:${tenantId}`;

/** The one counter of the earlier layout, shared by every tenant. */
export const GLOBAL_WRITE_COUNTER_ID = 'memory_writes';

/** The tenant's next queue position, taken inside the enqueue transaction. */
export async function nextWritePosition(counters: Collection<CounterDoc>, tenantId: string, session: ClientSession): Promise<number> {
  const doc = await counters.findOneAndUpdate(
    { _id: writeCounterId(tenantId) },
    { $inc: { seq: 1 } },
    { upsert: true, returnDocument: 'after', session },
  );
  return doc!.seq;
}

/**
 * What the global counter becomes once migrated: a `seq` that is not a number, so the `$inc` of a
 * process of the earlier version still running fails (MongoDB refuses `$inc` on a string: code 14,
 * TypeMismatch) instead of silently recreating the counter at 1 and numbering its writes from there.
 */
export const RETIRED_WRITE_COUNTER = 'retired';

/**
 * Start-up step for queues written with the global counter: every tenant with queued writes gets its
 * counter raised to the global counter's value, so its next write queues after its old ones; then the
 * global document is retired (`RETIRED_WRITE_COUNTER`), not deleted: a deleted counter would be
 * recreated by an old process's upsert. Running again finds no numeric counter and does nothing; a
 * crash in between only repeats the idempotent raise.
 */
export async function migrateGlobalWriteCounter(
  counters: Collection<CounterDoc>,
  writes: { distinct(key: 'tenantId'): Promise<unknown[]> },
): Promise<{ tenants: number }> {
  const global = await counters.findOne({ _id: GLOBAL_WRITE_COUNTER_ID });
  if (!global || typeof global.seq !== 'number') return { tenants: 0 };
  const tenants = (await writes.distinct('tenantId')) as string[];
  if (tenants.length > 0) {
    await counters.bulkWrite(
      tenants.map((t) => ({ updateOne: { filter: { _id: writeCounterId(t) }, update: { $max: { seq: global.seq } }, upsert: true } })),
      { ordered: false },
    );
  }
  // Only as read: had a process of the earlier version moved it meanwhile, the next start raises again.
  await counters.updateOne({ _id: GLOBAL_WRITE_COUNTER_ID, seq: global.seq }, { $set: { seq: RETIRED_WRITE_COUNTER as never } });
  return { tenants: tenants.length };
}
