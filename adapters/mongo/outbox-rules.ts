import { AppError } from '../../server/errors.js';
import { SearchIndexConfigurationError } from '../../server/ports/search-index.js';

/**
 * The index outbox's decisions, pure (table-tested in test/unit/index-outbox-rules.test.ts): what
 * flushing an entry does given the memory's state now, and what a failed attempt means for the entry.
 * `outbox-drain.ts` runs them; `index-outbox.ts` reads and writes MongoDB.
 */

/**
 * `fresh`: the flush right after a commit, which takes only entries never tried (a failing entry must
 * not cost every commit of its tenant a request) and stops at the first sign of an outage.
 * `all`: the recurring drain job, which retries every pending entry and isolates the failing ones.
 */
export type DrainMode = 'fresh' | 'all';

/** What an entry says. */
export interface EntryFacts {
  op: 'upsert' | 'remove';
  /** The committed version an upsert's document describes; for a removal, the one the memory left the index at (0 when queued by an earlier release). */
  version: number;
  hasDoc: boolean;
  /** Counted failed attempts so far. */
  attempts: number;
}

/** The memory as the store has it now; null when it no longer exists. */
export interface MemoryIndexState {
  committedVersion: number;
  merged: boolean;
}

/**
 * - `remove`: the memory is gone or merged into another, whatever the entry says (a replayed or
 *   stale entry can never put back what a later commit or a delete took out);
 * - `upsert`: the entry describes the memory's committed version now;
 * - `drop`: nothing to do (an older version: the later commit wrote its own entry);
 * - `leave`: not this flush's work (an entry that already failed waits for the drain job).
 */
export type EntryAction = 'upsert' | 'remove' | 'drop' | 'leave';

export function entryAction(entry: EntryFacts, state: MemoryIndexState | null, mode: DrainMode): EntryAction {
  if (mode === 'fresh' && entry.attempts > 0) return 'leave';
  if (!state || state.merged) return 'remove';
  if (entry.op === 'upsert' && entry.hasDoc && entry.version === state.committedVersion) return 'upsert';
  return 'drop';
}

/**
 * `unavailable`: the index could not be reached or failed (503 from the index adapters: refused,
 * timed out, overloaded, 5xx); `misconfigured`: the deployment refuses every write alike (a key it no
 * longer accepts, no API at the address, a size limit: `SearchIndexConfigurationError`), an outage
 * until an operator acts; `rejected`: it answered and refused the request (a malformed point, a
 * vector of another dimension), which retrying the same entry will not fix.
 */
export type FailureKind = 'unavailable' | 'misconfigured' | 'rejected';

export function failureKind(err: unknown): FailureKind {
  if (err instanceof SearchIndexConfigurationError) return 'misconfigured';
  return err instanceof AppError && err.code === 'DEPENDENCY_UNAVAILABLE' ? 'unavailable' : 'rejected';
}

/**
 * A batch request failed. `stop`: leave the batch for later (the index is down, and a commit's flush
 * must not spend a request per entry finding that out again); `isolate`: apply its entries one by one,
 * so one bad entry holds back only itself. A drain job isolates a misconfigured answer too (a size
 * limit may refuse the batch and take its entries alone); the first entry refused alike stops it.
 */
export function onBatchFailure(kind: FailureKind, mode: DrainMode): 'stop' | 'isolate' {
  return kind !== 'rejected' && mode === 'fresh' ? 'stop' : 'isolate';
}

/**
 * While isolating, after an entry failed alone: go on unless the index looks down, which is two
 * unavailable answers in a row (the first might be one entry's own fault, e.g. one that always times
 * out; the next entry tells), or one misconfigured answer. Bounds what an outage costs a drain to two
 * more requests.
 */
export function continueIsolating(f: { kind: FailureKind; unavailableInARow: number }): boolean {
  if (f.kind === 'misconfigured') return false;
  return f.kind === 'rejected' || f.unavailableInARow < 2;
}

export interface FailureOutcome {
  /** Counted attempts after this one. */
  attempts: number;
  /** Whether this failure counts against the entry. */
  counted: boolean;
  /** Set the entry aside: kept, never retried on its own, no longer holding up its tenant. */
  poisoned: boolean;
}

/**
 * What a failed attempt does to the entry. It counts only when the index accepted another entry in
 * the same run (`indexAnswered`): then the failure is this entry's own. A refusal with nothing
 * accepted beside it may be the index refusing everything (a proxy's 400s, a schema change), and an
 * outage or a misconfiguration never counts, so however long either lasts no entry is set aside for
 * it. An entry whose counted attempts reach `maxAttempts` is set aside.
 */
export function failureOutcome(f: { attempts: number; kind: FailureKind; indexAnswered: boolean; maxAttempts: number }): FailureOutcome {
  const counted = f.kind !== 'misconfigured' && f.indexAnswered;
  const attempts = f.attempts + (counted ? 1 : 0);
  return { attempts, counted, poisoned: counted && attempts >= Math.max(1, f.maxAttempts) };
}
