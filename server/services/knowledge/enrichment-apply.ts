import type { PlannedLogEntry } from './enrichment-log-entry.js';
import type { FieldUpdate, RunPlan } from './enrichment-plan.js';
import type { FieldValues } from './field-shape.js';
import { sameFieldValue } from './field-content.js';
import type { FieldValue } from './model.js';

/**
 * Applying a finished run to the object as it is NOW (issue #23: "a client PATCH during a run wins").
 * The adapter reads the current object inside its write transaction, calls `applyRunToCurrent`, writes
 * `writes` and appends `entries`, then recomputes completeness and status from `values`.
 */

/** A field changed since the run's snapshot (any difference in the stored FieldValue, or its appearance or removal). */
export function isStale(update: Pick<FieldUpdate, 'previous'>, now: FieldValue | undefined): boolean {
  return !sameFieldValue(update.previous ?? undefined, now);
}

export interface CurrentObject {
  values: FieldValues;
  doNotEnrich: boolean;
}

export interface AppliedRun {
  /** Only the fields to write. */
  writes: Record<string, FieldValue>;
  /** The object's values after the writes, for recomputing score and status. */
  values: Record<string, FieldValue>;
  /** The run's log entries, committed entries of stale fields turned `stale`. */
  entries: PlannedLogEntry[];
  staleFields: string[];
}

/**
 * Writes every planned update whose field is unchanged since the snapshot; a changed field keeps the
 * client's value and its committed entries become `stale`. A client that set `do_not_enrich` during the
 * run withdrew consent: nothing is written and every committed entry is stale.
 */
export function applyRunToCurrent(current: CurrentObject, plan: RunPlan): AppliedRun {
  const writes: Record<string, FieldValue> = {};
  const staleFields: string[] = [];
  for (const update of plan.updates) {
    if (current.doNotEnrich || isStale(update, current.values[update.field])) staleFields.push(update.field);
    else writes[update.field] = update.next;
  }
  const entries = plan.entries.map((entry) =>
    entry.outcome === 'committed' && staleFields.includes(entry.field) ? { ...entry, outcome: 'stale' as const } : entry,
  );
  const values: Record<string, FieldValue> = {};
  for (const [field, value] of Object.entries(current.values)) if (value) values[field] = value;
  return { writes, values: { ...values, ...writes }, entries, staleFields };
}
