import type { CandidateDecision } from './candidate-decision.js';
import type { EngineName, EnrichmentOutcome, FieldValue, JsonValue } from './model.js';

/**
 * One enrichment log entry as a run plans it (issue #23 §5): one per field × engine × strategy attempt,
 * misses included. The store adds `id`, `tenantId`, `koId` and `createdAt` when it appends the entry.
 */
export interface PlannedLogEntry {
  runId: string;
  engine: EngineName;
  field: string;
  strategy: string;
  /** For a committed entry, the value exactly as written to the field; null for misses and engine errors. */
  candidateValue: JsonValue;
  /** For a committed entry, the written confidence; null for misses and engine errors. */
  confidence: number | null;
  outcome: EnrichmentOutcome;
  sourceRefs: string[];
  /** The field in the run's snapshot (null when it had no value). */
  previousValue: FieldValue | null;
}

export interface AttemptPlace {
  runId: string;
  engine: EngineName;
  field: string;
  strategy: string;
  previousValue: FieldValue | null;
}

/** The entry of a strategy that found nothing for a field: misses are logged so a user sees what was tried. */
export function noCandidateEntry(place: AttemptPlace): PlannedLogEntry {
  return { ...place, candidateValue: null, confidence: null, outcome: 'no_candidate', sourceRefs: [] };
}

/** The entry of an engine that failed for a field: a failure is recorded, never swallowed. */
export function engineErrorEntry(place: AttemptPlace): PlannedLogEntry {
  return failureEntry(place, 'error', []);
}

/** The entry of an attempt an engine reports as stopped (refused by policy, or failed) before any candidate. */
export function failureEntry(place: AttemptPlace, outcome: 'policy_denied' | 'error', sourceRefs: readonly string[]): PlannedLogEntry {
  return { ...place, candidateValue: null, confidence: null, outcome, sourceRefs: [...sourceRefs] };
}

/** The entry of a decided candidate; a committed one carries the written value so log and field agree exactly. */
export function decisionEntry(runId: string, engine: EngineName, field: string, decision: CandidateDecision): PlannedLogEntry {
  const { candidate, outcome, previous, next } = decision;
  return {
    runId,
    engine,
    field,
    strategy: candidate.strategy,
    candidateValue: next ? next.value : candidate.value,
    confidence: next ? next.confidence : candidate.confidence,
    outcome,
    sourceRefs: [...candidate.sourceRefs],
    previousValue: previous,
  };
}
