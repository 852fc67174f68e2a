import type { IndexChange, IndexedMemory, SearchIndex } from '../../server/ports/search-index.js';
import {
  continueIsolating,
  entryAction,
  failureKind,
  failureOutcome,
  onBatchFailure,
  type DrainMode,
  type FailureKind,
  type MemoryIndexState,
} from './outbox-rules.js';

/** An outbox entry as the drain reads it. */
export interface OutboxEntry {
  id: string;
  tenantId: string;
  memoryId: string;
  op: 'upsert' | 'remove';
  version: number;
  doc: IndexedMemory | null;
  /** RFC 3339 time of the commit that wrote it: the drain's order, with `id` breaking ties. */
  at: string;
  attempts: number;
}

/** A failed attempt, as the store records it. */
export interface EntryFailure {
  entry: OutboxEntry;
  /** Counted attempts now (unchanged when the failure did not count: an outage). */
  attempts: number;
  counted: boolean;
  poisoned: boolean;
  error: string;
}

/** The storage side of a drain (`index-outbox.ts` on MongoDB; an in-memory one in the unit tests). */
export interface OutboxEntryStore {
  /** The tenant's next entries after `after` (keyset on (at, id)), oldest first; `fresh` only those never tried. */
  next(tenantId: string, after: { at: string; id: string } | null, limit: number, mode: DrainMode): Promise<OutboxEntry[]>;
  /** The index-relevant state of the tenant's memories among `memoryIds` (absent: deleted). */
  states(tenantId: string, memoryIds: readonly string[]): Promise<Map<string, MemoryIndexState>>;
  /** Entries applied or no longer needed: deleted. */
  settle(entryIds: readonly string[]): Promise<void>;
  /** Keeps each failure's attempts and error on its entry; moves the poisoned ones aside. */
  recordFailures(failures: readonly EntryFailure[]): Promise<void>;
}

export interface OutboxLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface DrainOptions {
  mode: DrainMode;
  maxAttempts: number;
  batchSize: number;
  /**
   * Asked before each batch after the first and before each entry tried alone (the lease's check and
   * renewal); false stops the drain before it sends another request. One entry alone is a few index
   * requests, so a drain never sends one on a lease older than that: another holder may have taken the
   * tenant and indexed a later version since.
   */
  keepGoing?: () => Promise<boolean>;
  /** Epoch ms after which no further request is started (the drain job's budget); the rest stays queued. */
  deadline?: number;
  now?: () => number;
  log?: OutboxLog;
}

export interface DrainReport {
  /** Entries whose change reached the index. */
  applied: number;
  /** Entries with nothing left to do (superseded by a later commit). */
  dropped: number;
  /** Failed attempts (the entries stay, or were set aside). */
  failed: number;
  /** Entries set aside by this drain. */
  poisoned: number;
  /** The index was unreachable; the drain stopped and left the rest. */
  outage: boolean;
  /** `keepGoing` said no (the lease was lost): the rest was left for whoever holds it now. */
  stopped: boolean;
  /** The deadline passed: the rest was left for the next run. */
  timedOut: boolean;
}

/** Before each request after the first: `go`, or why not. */
type Proceed = () => Promise<'go' | 'stopped' | 'timedOut'>;

function proceeding(o: DrainOptions): Proceed {
  const now = o.now ?? Date.now;
  return async () => {
    if (o.deadline !== undefined && now() >= o.deadline) return 'timedOut';
    if (o.keepGoing && !(await o.keepGoing())) return 'stopped';
    return 'go';
  };
}

/** Entries queued by an earlier release carry version 0: their removal fences nothing. */
const changeOf = (e: OutboxEntry, action: 'upsert' | 'remove'): IndexChange =>
  action === 'upsert'
    ? { op: 'upsert', doc: e.doc! }
    : { op: 'remove', memoryId: e.memoryId, ...(e.version > 0 ? { committedVersion: e.version } : {}) };

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);

/**
 * Applies a tenant's outbox to the search index, oldest first, a batch of entries per index request.
 * Each entry is decided against its memory's state now (`entryAction`). When a batch fails, its
 * entries are retried one by one (`onBatchFailure`), so a bad entry fails alone and the others go
 * through; the failure is kept on the entry and, after `maxAttempts` counted failures, the entry is
 * set aside (`failureOutcome`). An outage stops the drain with everything left in place, and so do a
 * lost lease and a passed deadline, checked before every request after the first.
 */
export async function drainTenant(
  store: OutboxEntryStore,
  sink: Pick<SearchIndex, 'applyChanges'>,
  tenantId: string,
  o: DrainOptions,
): Promise<DrainReport> {
  const report = { applied: 0, dropped: 0, failed: 0, poisoned: 0, outage: false, stopped: false, timedOut: false };
  const proceed = proceeding(o);
  let after: { at: string; id: string } | null = null;
  // The index accepted an entry in this run: from then on a refusal is the refused entry's own.
  let accepted = false;
  for (;;) {
    const next = after ? await proceed() : 'go';
    if (next !== 'go') {
      report[next] = true;
      break;
    }
    const entries = await store.next(tenantId, after, o.batchSize, o.mode);
    if (entries.length === 0) break;
    after = { at: entries.at(-1)!.at, id: entries.at(-1)!.id };
    const states = await store.states(tenantId, [...new Set(entries.map((e) => e.memoryId))]);
    const dropped: string[] = [];
    const work: { entry: OutboxEntry; change: IndexChange }[] = [];
    for (const e of entries) {
      const action = entryAction({ ...e, hasDoc: e.doc !== null }, states.get(e.memoryId) ?? null, o.mode);
      if (action === 'drop') dropped.push(e.id);
      else if (action !== 'leave') work.push({ entry: e, change: changeOf(e, action) });
    }
    const { applied, failed, answered, outage, halted } = await applyBatch(sink, tenantId, work, o.mode, proceed);
    accepted ||= answered;
    await removeIfGoneSince(store, sink, tenantId, applied, o.log);
    const settled = [...dropped, ...applied.map((w) => w.entry.id)];
    if (settled.length > 0) await store.settle(settled);
    report.applied += applied.length;
    report.dropped += dropped.length;
    if (failed.length > 0) await record(store, tenantId, failed, accepted, o, report);
    if (outage) {
      report.outage = true;
      break;
    }
    if (halted) {
      report[halted] = true;
      break;
    }
    if (entries.length < o.batchSize) break;
  }
  return report;
}

interface Work {
  entry: OutboxEntry;
  change: IndexChange;
}

interface Failed {
  entry: OutboxEntry;
  kind: FailureKind;
  error: string;
}

interface BatchResult {
  applied: Work[];
  failed: Failed[];
  /** The index accepted an entry of this batch. */
  answered: boolean;
  outage: boolean;
  /** Isolation stopped before an entry: the lease was lost or the deadline passed (the rest stays untried). */
  halted?: 'stopped' | 'timedOut';
}

/**
 * One request for the batch; when it fails, one per entry (or none more, when the index is down, the
 * lease is lost or the deadline passed). `answered` says whether the index served an entry of this
 * batch, which makes the failures count.
 */
async function applyBatch(
  sink: Pick<SearchIndex, 'applyChanges'>,
  tenantId: string,
  work: readonly Work[],
  mode: DrainMode,
  proceed: Proceed,
): Promise<BatchResult> {
  if (work.length === 0) return { applied: [], failed: [], answered: false, outage: false };
  try {
    await sink.applyChanges(
      tenantId,
      work.map((w) => w.change),
    );
    return { applied: [...work], failed: [], answered: true, outage: false };
  } catch (err) {
    const kind = failureKind(err);
    if (onBatchFailure(kind, mode) === 'stop') {
      const failed = work.map((w) => ({ entry: w.entry, kind, error: messageOf(err) }));
      return { applied: [], failed, answered: false, outage: true };
    }
  }
  const applied: Work[] = [];
  const failed: Failed[] = [];
  // An entry of this batch went through alone: the index is up, so the others' failures are their own.
  let answered = false;
  let unavailableInARow = 0;
  for (const w of work) {
    const next = await proceed();
    if (next !== 'go') return { applied, failed, answered, outage: false, halted: next };
    try {
      await sink.applyChanges(tenantId, [w.change]);
      applied.push(w);
      answered = true;
      unavailableInARow = 0;
    } catch (err) {
      const kind = failureKind(err);
      failed.push({ entry: w.entry, kind, error: messageOf(err) });
      unavailableInARow = kind === 'unavailable' ? unavailableInARow + 1 : 0;
      if (!continueIsolating({ kind, unavailableInARow })) return { applied, failed, answered, outage: true };
    }
  }
  return { applied, failed, answered, outage: false };
}

/**
 * A memory deleted or merged while its upsert was on the way would be searchable again: its rows go.
 * Best effort: the delete's own outbox entry removes them too, unless another drain took it first.
 */
async function removeIfGoneSince(
  store: OutboxEntryStore,
  sink: Pick<SearchIndex, 'applyChanges'>,
  tenantId: string,
  applied: readonly Work[],
  log: OutboxLog | undefined,
): Promise<void> {
  const upserted = applied.filter((w) => w.change.op === 'upsert');
  if (upserted.length === 0) return;
  const now = await store.states(tenantId, [...new Set(upserted.map((w) => w.entry.memoryId))]);
  const gone = [...new Set(upserted.map((w) => w.entry.memoryId).filter((id) => !now.get(id) || now.get(id)!.merged))];
  if (gone.length === 0) return;
  // The tombstone's version: the highest this flush wrote, so that none of its writes can come back late.
  const version = (id: string) => Math.max(0, ...upserted.filter((w) => w.entry.memoryId === id).map((w) => w.entry.version));
  await sink
    .applyChanges(
      tenantId,
      gone.map((memoryId): IndexChange => ({
        op: 'remove',
        memoryId,
        ...(version(memoryId) > 0 ? { committedVersion: version(memoryId) } : {}),
      })),
    )
    .catch((err: unknown) =>
      log?.warn({ tenantId, memoryIds: gone, err: messageOf(err) }, 'could not remove the index rows of memories deleted during a flush'),
    );
}

/** Keeps the failures on their entries (or sets them aside) and logs each with its tenant and entry. */
async function record(
  store: OutboxEntryStore,
  tenantId: string,
  failed: readonly Failed[],
  answered: boolean,
  o: DrainOptions,
  report: { failed: number; poisoned: number },
): Promise<void> {
  const failures: EntryFailure[] = failed.map((f) => {
    const outcome = failureOutcome({ attempts: f.entry.attempts, kind: f.kind, indexAnswered: answered, maxAttempts: o.maxAttempts });
    return { entry: f.entry, attempts: outcome.attempts, poisoned: outcome.poisoned, error: f.error, counted: outcome.counted };
  });
  await store.recordFailures(failures);
  report.failed += failures.length;
  for (const f of failures) {
    const fields = { tenantId, entryId: f.entry.id, memoryId: f.entry.memoryId, op: f.entry.op, attempts: f.attempts, err: f.error };
    if (f.poisoned) {
      report.poisoned++;
      o.log?.error(fields, 'search index outbox entry set aside after repeated failures; `tenant-memory outbox retry` puts it back');
    }
  }
  const kept = failures.filter((f) => !f.poisoned);
  if (kept.length === 0) return;
  if (kept.every((f) => !f.counted)) {
    const first = kept[0]!;
    o.log?.warn(
      { tenantId, entryId: first.entry.id, entries: kept.length, err: first.error },
      'search index unavailable: index work stays in the outbox and is retried by the drain job',
    );
  } else {
    for (const f of kept) {
      o.log?.warn(
        { tenantId, entryId: f.entry.id, memoryId: f.entry.memoryId, op: f.entry.op, attempts: f.attempts, err: f.error },
        'search index outbox entry failed; it stays queued for the drain job',
      );
    }
  }
}
