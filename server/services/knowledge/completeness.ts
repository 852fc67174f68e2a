import type { FieldValues, KnowledgeFields } from './field-shape.js';
import { isFilled } from './field-content.js';
import type { ObjectStatus } from './model.js';

/**
 * Completeness and status of a knowledge object (issue #23 §3), one rule for both storage profiles.
 * Proposals never count: only stored values (or `knownNone`) fill a field.
 */

/** Scores are stored rounded to 4 decimals, so both profiles store, filter and compare the same number. */
export const SCORE_DECIMALS = 4;
const SCALE = 10 ** SCORE_DECIMALS;
/** The highest score an object with a gap can have: rounding must never make an incomplete object COMPLETE. */
export const HIGHEST_INCOMPLETE_SCORE = (SCALE - 1) / SCALE;

function weightOf(weight: number): number {
  // The parser refuses negative weights; a bad one still must not subtract from the score.
  return Number.isFinite(weight) && weight > 0 ? weight : 0;
}

function rounded(share: number): number {
  return Math.round(share * SCALE) / SCALE;
}

/**
 * Weighted share of filled fields, in [0, 1], rounded to 4 decimals. Fields of weight 0 are left out of
 * the share. The score is 1 only when every weighted field AND every required field is filled (a required
 * field of weight 0 still holds the score at most at 0.9999), so "score 1" and "COMPLETE" mean the same
 * thing. When no field carries weight the score is 1 if every required field is filled, else 0.
 */
export function completenessScore(fields: KnowledgeFields, values: FieldValues): number {
  let total = 0;
  let filled = 0;
  let gap = false;
  for (const [name, field] of Object.entries(fields)) {
    const weight = weightOf(field.annotation.weight);
    const isIn = isFilled(values[name]);
    total += weight;
    if (isIn) filled += weight;
    else if (weight > 0 || field.required) gap = true;
  }
  if (!gap) return 1;
  if (total === 0) return 0;
  return Math.min(HIGHEST_INCOMPLETE_SCORE, rounded(filled / total));
}

/** The names of required fields that are empty, in structure order. */
export function requiredMissing(fields: KnowledgeFields, values: FieldValues): string[] {
  return Object.entries(fields)
    .filter(([name, field]) => field.required && !isFilled(values[name]))
    .map(([name]) => name);
}

export interface StatusFacts {
  score: number;
  /** Some required field is empty. */
  requiredMissing: boolean;
  /** An enrichment run holds the object right now. */
  enriching: boolean;
  /** At least one enrichment run has finished on the object since it was created. */
  enrichedSinceCreation: boolean;
}

/**
 * ENRICHING while a run holds the object, whatever the score: the run may still replace inferred values
 * of a complete object, and a client polling after `POST .../enrich` must see its run until it settles.
 * Otherwise COMPLETE at score 1; INCOMPLETE while a required field is empty or no run has finished yet;
 * PARTIALLY_COMPLETE after one has.
 */
export function objectStatus(facts: StatusFacts): ObjectStatus {
  if (facts.enriching) return 'ENRICHING';
  if (facts.score === 1 && !facts.requiredMissing) return 'COMPLETE';
  if (facts.requiredMissing || !facts.enrichedSinceCreation) return 'INCOMPLETE';
  return 'PARTIALLY_COMPLETE';
}

export interface MissingField {
  field: string;
  required: boolean;
  weight: number;
  /** How much the score rises when this field alone is filled: weight / total weight, 4 decimals (0 for weight 0). */
  share: number;
}

/**
 * The empty fields, ranked as "what to fill next": required first, then heavier first, then by name so the
 * order is stable across profiles. Weight-0 fields are listed too (last among their kind), with share 0.
 */
export function missingFields(fields: KnowledgeFields, values: FieldValues): MissingField[] {
  const total = Object.values(fields).reduce((sum, field) => sum + weightOf(field.annotation.weight), 0);
  return Object.entries(fields)
    .filter(([name]) => !isFilled(values[name]))
    .map(([name, field]) => {
      const weight = weightOf(field.annotation.weight);
      return { field: name, required: field.required, weight, share: total === 0 ? 0 : rounded(weight / total) };
    })
    .sort((a, b) => Number(b.required) - Number(a.required) || b.weight - a.weight || (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

export interface ObjectAssessment {
  completenessScore: number;
  status: ObjectStatus;
  missingFields: MissingField[];
}

/** Score, status and missing fields in one call: what every write recomputes before it stores the object. */
export function assessObject(
  fields: KnowledgeFields,
  values: FieldValues,
  run: { enriching: boolean; enrichedSinceCreation: boolean },
): ObjectAssessment {
  const score = completenessScore(fields, values);
  const status = objectStatus({ score, requiredMissing: requiredMissing(fields, values).length > 0, ...run });
  return { completenessScore: score, status, missingFields: missingFields(fields, values) };
}
