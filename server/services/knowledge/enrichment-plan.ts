import { decideFieldCandidates } from './candidate-decision.js';
import type { EngineFailure } from '../../ports/enrichment-engine.js';
import { decisionEntry, engineErrorEntry, failureEntry, noCandidateEntry, type PlannedLogEntry } from './enrichment-log-entry.js';
import type { FieldValues, KnowledgeFields } from './field-shape.js';
import { isAgentOwned } from './field-content.js';
import type { Candidate, EngineName, FieldValue, JsonValue, Provenance } from './model.js';

/**
 * One enrichment run as pure decisions (issue #23 §4): engines are tried per field in order (rule, kg,
 * llm, web) until one commits. The job asks each engine only for `openFields(plan)` and folds its answer
 * in with `planEngineStep`; `planRun` does the whole fold when every engine's output is at hand.
 *
 * A field leaves the run (is "closed") when an engine commits a value to it or when an engine's confident
 * candidates for it disagree: a disagreement in the tenant's own evidence is for a person to settle, and a
 * later, less trusted engine must not silently pick a side. Candidates a later engine still returns for a
 * closed field are not logged at all: that engine was not tried on the field, the answer is a by-product.
 */

export interface RunSnapshot {
  fields: KnowledgeFields;
  values: FieldValues;
  doNotEnrich: boolean;
  /** Whether the structure accepts a value for a field (see `FieldContext.accepts`); default: every value. */
  accepts?: (field: string, value: JsonValue) => boolean;
}

/** What one engine returned: its candidates, or the error that stopped it. */
export type EngineOutput =
  | {
      engine: EngineName;
      /** The provenance its values are stored with (the rule engine writes `KG_INFERENCE`). */
      provenance: Provenance;
      candidates: readonly Candidate[];
      /**
       * The strategies the engine ran per field, so each strategy that found nothing is logged as a miss.
       * A field left out gets one miss entry named after the engine when it produced no candidate; an
       * empty list says the engine has no strategy for the field (nothing is logged).
       */
      tried?: Readonly<Record<string, readonly string[]>>;
      /** Attempts stopped before any candidate; each is logged for its field (when still open) with its own outcome. */
      failures?: readonly EngineFailure[];
    }
  | { engine: EngineName; provenance: Provenance; error: string };

/** A field the run writes: `previous` is the snapshot's value, which the apply step checks for staleness. */
export interface FieldUpdate {
  field: string;
  previous: FieldValue | null;
  next: FieldValue;
}

export interface RunPlan {
  runId: string;
  /** The run's timestamp, written as `updatedAt` of every value it commits. */
  at: string;
  snapshot: RunSnapshot;
  updates: readonly FieldUpdate[];
  entries: readonly PlannedLogEntry[];
  /** Fields committed or in conflict in this run. */
  closed: readonly string[];
}

export function startRun(runId: string, at: string, snapshot: RunSnapshot): RunPlan {
  return { runId, at, snapshot, updates: [], entries: [], closed: [] };
}

/**
 * The fields the next engine should work on: not closed in this run and not owned by the agent. Inferred
 * values stay open, since a more confident candidate may replace them. None when the object opts out.
 */
export function openFields(plan: RunPlan): string[] {
  const { fields, values, doNotEnrich } = plan.snapshot;
  if (doNotEnrich) return [];
  return Object.keys(fields).filter((name) => !plan.closed.includes(name) && !isAgentOwned(values[name]));
}

function groupByField(candidates: readonly Candidate[]): Map<string, Candidate[]> {
  const groups = new Map<string, Candidate[]>();
  for (const candidate of candidates) {
    const group = groups.get(candidate.field);
    if (group) group.push(candidate);
    else groups.set(candidate.field, [candidate]);
  }
  return groups;
}

/** Fold one engine's output into the plan; engines must be folded in their order. */
export function planEngineStep(plan: RunPlan, output: EngineOutput): RunPlan {
  const { fields, values, doNotEnrich } = plan.snapshot;
  if (doNotEnrich) return plan;
  const { runId, at } = plan;
  const { engine } = output;
  const open = new Set(openFields(plan));
  const entries: PlannedLogEntry[] = [];
  const updates: FieldUpdate[] = [];
  const closed: string[] = [];

  if ('error' in output) {
    for (const field of open) {
      entries.push(engineErrorEntry({ runId, engine, field, strategy: engine, previousValue: values[field] ?? null }));
    }
    return { ...plan, entries: [...plan.entries, ...entries] };
  }

  for (const failure of output.failures ?? []) {
    if (!open.has(failure.field)) continue;
    const place = { runId, engine, field: failure.field, strategy: failure.strategy, previousValue: values[failure.field] ?? null };
    entries.push(failureEntry(place, failure.outcome, failure.sourceRefs));
  }

  const groups = groupByField(output.candidates);
  for (const [field, group] of groups) {
    // A candidate for a field the structure does not have is the engine's fault: logged as its error.
    if (fields[field]) continue;
    for (const candidate of group) {
      entries.push({
        ...engineErrorEntry({ runId, engine, field, strategy: candidate.strategy, previousValue: null }),
        candidateValue: candidate.value,
        confidence: candidate.confidence,
        sourceRefs: [...candidate.sourceRefs],
      });
    }
  }

  for (const [field, shape] of Object.entries(fields)) {
    if (plan.closed.includes(field)) continue;
    const current = values[field];
    const previousValue = current ?? null;
    const group = groups.get(field) ?? [];
    if (group.length > 0) {
      const accepts = plan.snapshot.accepts;
      const context = { annotation: shape.annotation, current, ...(accepts ? { accepts: (v: JsonValue) => accepts(field, v) } : {}) };
      const decided = decideFieldCandidates(context, output, group, at);
      entries.push(...decided.decisions.map((decision) => decisionEntry(runId, engine, field, decision)));
      if (decided.next) updates.push({ field, previous: previousValue, next: decided.next });
      if (decided.next || decided.decisions.some((d) => d.outcome === 'conflict')) closed.push(field);
    }
    if (!open.has(field)) continue;
    const found = new Set(group.map((candidate) => candidate.strategy));
    const tried = output.tried?.[field] ?? (group.length > 0 ? [] : [engine]);
    for (const strategy of tried) {
      if (!found.has(strategy)) entries.push(noCandidateEntry({ runId, engine, field, strategy, previousValue }));
    }
  }

  return {
    ...plan,
    updates: [...plan.updates, ...updates],
    entries: [...plan.entries, ...entries],
    closed: [...plan.closed, ...closed],
  };
}

/** The whole run when every engine's output is known, engines in the order given. */
export function planRun(runId: string, at: string, snapshot: RunSnapshot, outputs: readonly EngineOutput[]): RunPlan {
  return outputs.reduce(planEngineStep, startRun(runId, at, snapshot));
}
