/**
 * What a consolidation commit changes on a memory row, decided once for both stores. The guards
 * (write still queued, expected committed version) stay with each store's transaction; this says
 * what the row becomes.
 */
import type { ApplyWriteOp, DerivedState, UpdateMemoryOp } from '../ports/memories.js';

/** The row of a memory whose queued write is applied. */
export interface AppliedWriteProjection {
  committedVersion: number;
  /** Set whatever the head: the consolidated state follows the committed version. */
  set: Omit<DerivedState, 'sensitivity' | 'sensitivityReasons' | 'subjects'>;
  /**
   * Set only while the applied version is the memory's head: a newer write queued since keeps showing
   * its own provisional sensitivity until it is consolidated in turn.
   */
  atHeadOnly: Pick<DerivedState, 'sensitivity' | 'sensitivityReasons'>;
  /** Subject keys the memory is found by: only while it is active and not merged into another. */
  subjects: readonly string[];
  /** The memory's queued writes drop by this one. */
  pendingDelta: -1;
  /** `updatedAt` and `committedAt`. */
  at: string;
}

const NO_SUBJECTS: readonly string[] = Object.freeze([]);

/** Whether a memory in this state is a same-subject candidate (and so keeps its subject keys). */
export function keepsSubjects(state: Pick<DerivedState, 'status' | 'mergedInto'>): boolean {
  return state.status === 'active' && state.mergedInto === null;
}

export function appliedWriteProjection(op: ApplyWriteOp, at: string): AppliedWriteProjection {
  const { sensitivity, sensitivityReasons, subjects, ...set } = op.derived;
  return {
    committedVersion: op.version,
    set,
    atHeadOnly: { sensitivity, sensitivityReasons },
    subjects: keepsSubjects(op.derived) ? subjects : NO_SUBJECTS,
    pendingDelta: -1,
    at,
  };
}

/** The row of another memory the commit changes (the older side of a contradiction). */
export interface MemoryUpdateProjection {
  /** Head and committed version both move here (one past the expected version when a snapshot is appended). */
  version: number;
  /** The version number of the appended snapshot, or null when none is. */
  snapshotVersion: number | null;
  set: UpdateMemoryOp['set'];
  /** A memory that is no longer active stops being found by its subject keys. */
  dropSubjects: boolean;
  at: string;
}

export function memoryUpdateProjection(op: UpdateMemoryOp, at: string): MemoryUpdateProjection {
  const version = op.snapshot ? op.expectCommittedVersion + 1 : op.expectCommittedVersion;
  return { version, snapshotVersion: op.snapshot ? version : null, set: op.set, dropSubjects: op.set.status !== 'active', at };
}
