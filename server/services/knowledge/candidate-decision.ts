import { hasContent, isAgentOwned, isFilled, multiItems, sameValueKey } from './field-content.js';
import type { Candidate, EngineName, EnrichmentOutcome, FieldAnnotation, FieldValue, JsonValue, Provenance } from './model.js';

/**
 * What enrichment candidates do to one field (issue #23 §4): policy, the agent's ownership, thresholds,
 * the current inferred value, conflicts and multi-value merges. One engine's candidates for one field are
 * decided together, because a conflict is a property of the group, not of one candidate.
 */

/** Engines that send data out of the deployment; a `high` sensitivity field is never given to or taken from them. */
const OUTSIDE_ENGINES: ReadonlySet<EngineName> = new Set(['llm', 'web']);

/** Outcomes one candidate can have on its own, before it is compared with the other candidates of its group. */
export type CandidateVerdict = 'policy_denied' | 'skipped_agent_value' | 'rejected' | 'proposed' | 'committable' | 'error';

export interface FieldContext {
  annotation: FieldAnnotation;
  /** The field's stored value in the run's snapshot; undefined when the field has none. */
  current: FieldValue | undefined;
  /**
   * Whether the structure accepts a value for the field (its schema, `maxItems`, the size limits).
   * Candidates are screened one by one before they get here; a multi-value merge asks again, since a
   * union of valid lists can be too long. Default: every value.
   */
  accepts?: (value: JsonValue) => boolean;
}

export interface EngineIdentity {
  engine: EngineName;
  provenance: Provenance;
}

/** A multi-value field's stored items the candidate does not repeat; an empty field has none. */
function newItems(candidate: Candidate, current: FieldValue | undefined): JsonValue[] {
  const held = new Set(isFilled(current) && current ? multiItems(current.value).map(sameValueKey) : []);
  return multiItems(candidate.value).filter((item) => !held.has(sameValueKey(item)));
}

/** The engine may fill this field: the structure allows its provenance and the field's sensitivity allows the engine. */
export function policyAllows(annotation: FieldAnnotation, source: EngineIdentity): boolean {
  // AGENT_INPUT is the client's alone: an engine claiming it would forge the strongest provenance.
  if (source.provenance === 'AGENT_INPUT') return false;
  if (!annotation.provenance.includes(source.provenance)) return false;
  return !(annotation.sensitivity === 'high' && OUTSIDE_ENGINES.has(source.engine));
}

/**
 * One candidate on its own, checks in this order: a malformed confidence is the engine's error; policy;
 * the agent's value (filled or known-none) is never touched; empty or below-`proposeAt` values and values
 * that do not beat the current inferred one (single: strictly higher confidence; multi: at least one new
 * item) are rejected; then `proposeAt ≤ c < commitAt` is proposed and `c ≥ commitAt` committable.
 * A current value without content that is not known-none (a cleared field) counts as empty, whoever wrote it.
 */
export function screenCandidate(context: FieldContext, source: EngineIdentity, candidate: Candidate): CandidateVerdict {
  const { annotation, current } = context;
  const confidence = candidate.confidence;
  if (!Number.isFinite(confidence) || confidence < 0 || confidence > 1) return 'error';
  if (!policyAllows(annotation, source)) return 'policy_denied';
  if (isAgentOwned(current)) return 'skipped_agent_value';
  if (!hasContent(candidate.value) || confidence < annotation.proposeAt) return 'rejected';
  if (isFilled(current) && current) {
    const beats = annotation.cardinality === 'multi' ? newItems(candidate, current).length > 0 : confidence > current.confidence;
    if (!beats) return 'rejected';
  }
  return confidence >= annotation.commitAt ? 'committable' : 'proposed';
}

/** One candidate's decided outcome; `next` is the field as written, present exactly when committed. */
export interface CandidateDecision {
  candidate: Candidate;
  outcome: Exclude<EnrichmentOutcome, 'no_candidate' | 'stale'>;
  previous: FieldValue | null;
  next: FieldValue | null;
}

export interface FieldDecision {
  decisions: CandidateDecision[];
  /** The value to write, or null when nothing is committed. */
  next: FieldValue | null;
}

/** The single-value winner: no winner when committable candidates disagree; else the most confident (the first on a tie). */
function singleValueWinner(committable: Candidate[]): Candidate | 'conflict' {
  const distinct = new Set(committable.map((candidate) => sameValueKey(candidate.value)));
  if (distinct.size > 1) return 'conflict';
  return committable.reduce((best, candidate) => (candidate.confidence > best.confidence ? candidate : best));
}

/**
 * A multi-value field gains the union of its inferred items and the committable candidates' items, the
 * most confident candidates first, as long as the structure accepts the union (a candidate that would
 * push it past `maxItems` or a size limit is left out, and logged `rejected`). The merged value claims
 * the lowest confidence among its contributors and the provenance of the engine that wrote it last
 * (engines run from the most to the least trusted, so that is the weaker claim).
 */
function multiValueWrite(committable: Candidate[], context: FieldContext, source: EngineIdentity, at: string): GroupWrite {
  const kept = isFilled(context.current) && context.current ? [context.current] : [];
  const accepts = context.accepts ?? (() => true);
  const union = (candidates: Candidate[]) => multiItems([...kept.map((field) => field.value), ...candidates.map((c) => c.value)].flat());
  const taken = new Set<Candidate>();
  for (const candidate of [...committable].sort((a, b) => b.confidence - a.confidence)) {
    if (accepts(union([...taken, candidate]))) taken.add(candidate);
  }
  // The items keep the candidates' own order; which ones fit does not depend on it.
  const writers = committable.filter((c) => taken.has(c));
  if (writers.length === 0) return { next: null, conflict: false, writers };
  const items = union(writers);
  const confidence = Math.min(...kept.map((field) => field.confidence), ...writers.map((c) => c.confidence));
  return { next: { value: items, confidence, provenance: source.provenance, updatedAt: at }, conflict: false, writers };
}

interface GroupWrite {
  next: FieldValue | null;
  conflict: boolean;
  /** The candidates whose value is (part of) what is written. */
  writers: Candidate[];
}

function writeOf(committable: Candidate[], context: FieldContext, source: EngineIdentity, at: string): GroupWrite {
  if (committable.length === 0) return { next: null, conflict: false, writers: [] };
  if (context.annotation.cardinality === 'multi') return multiValueWrite(committable, context, source, at);
  const winner = singleValueWinner(committable);
  if (winner === 'conflict') return { next: null, conflict: true, writers: [] };
  const next = { value: winner.value, confidence: winner.confidence, provenance: source.provenance, updatedAt: at };
  return { next, conflict: false, writers: [winner] };
}

/**
 * Decide one engine's candidates for one field. Single-value field: committable candidates that disagree
 * (after normalisation, see `sameValueKey`) are ALL a conflict and nothing is written; agreeing ones write
 * the most confident, the others are rejected (the written value holds an equal or higher confidence).
 * Multi-value field: committable candidates are merged, never in conflict, and each one the merge takes is
 * logged committed (one that would not fit the structure, rejected). A committed decision's `next` is the
 * field exactly as written, so log and field agree.
 */
export function decideFieldCandidates(
  context: FieldContext,
  source: EngineIdentity,
  candidates: readonly Candidate[],
  at: string,
): FieldDecision {
  const previous = context.current ?? null;
  const verdicts = candidates.map((candidate) => ({ candidate, verdict: screenCandidate(context, source, candidate) }));
  const committable = verdicts.filter((v) => v.verdict === 'committable').map((v) => v.candidate);
  const { next, conflict, writers } = writeOf(committable, context, source, at);
  const decisions = verdicts.map(({ candidate, verdict }): CandidateDecision => {
    if (verdict !== 'committable') return { candidate, outcome: verdict, previous, next: null };
    if (conflict) return { candidate, outcome: 'conflict', previous, next: null };
    // An agreeing candidate that lost to the winner meets a written value of equal or higher confidence;
    // a multi-value candidate left out did not fit the structure.
    if (!writers.includes(candidate)) return { candidate, outcome: 'rejected', previous, next: null };
    return { candidate, outcome: 'committed', previous, next };
  });
  return { decisions, next };
}
