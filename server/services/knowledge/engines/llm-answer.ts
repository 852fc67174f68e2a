import { z } from 'zod';
import { DEFAULT_COMMIT_AT, type Candidate, type JsonValue } from '../model.js';
import type { StructureDefinition } from '../structure-definition.js';
import { LLM_STRATEGY } from './llm-prompt.js';

/**
 * The LLM engine's answer, validated before use (issue #23 §4). Only the envelope is checked here;
 * each value is checked against the structure by the enrichment run (a wrong type is logged
 * `rejected`, a field the structure lacks `error`, a `high` field `policy_denied`), so every
 * refusal shows in the log. A model's confidence is its own opinion, so it is capped:
 * - a value citing at least one of the memories sent: at most `LLM_CITED_MAX_CONFIDENCE`;
 * - a value citing none of them: at most `LLM_UNCITED_MAX_CONFIDENCE` and always below the field's
 *   `commit_at`, so it can at best be proposed (unless a structure sets `commit_at` to 0).
 * A confidence outside [0, 1] is passed on as is: the run logs it as the engine's error.
 */

export const LLM_CITED_MAX_CONFIDENCE = 0.9;
export const LLM_UNCITED_MAX_CONFIDENCE = 0.6;
/** How far below `commit_at` an uncited value stays. */
const BELOW_COMMIT = 0.01;

const AnswerEntry = z.object({
  value: z.json(),
  confidence: z.number(),
  memory_ids: z.array(z.string().max(200)).max(100).optional(),
});

const Answer = z.object({
  fields: z.record(z.string().max(200), AnswerEntry.nullable()),
});
export type LlmAnswer = z.infer<typeof Answer>;

/** The answer's envelope, or an Error saying what is wrong (the run logs it with outcome `error`). */
export function readLlmAnswer(raw: unknown): LlmAnswer {
  const parsed = Answer.safeParse(raw);
  if (!parsed.success) throw new Error(`LLM answer is not the expected JSON: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** The confidence a candidate carries: the model's, capped by whether it cited evidence that was sent. */
export function cappedConfidence(reported: number, cited: boolean, commitAt: number): number {
  if (!Number.isFinite(reported) || reported < 0 || reported > 1) return reported;
  if (cited) return Math.min(reported, LLM_CITED_MAX_CONFIDENCE);
  return Math.min(reported, LLM_UNCITED_MAX_CONFIDENCE, Math.max(0, commitAt - BELOW_COMMIT));
}

/** One candidate per answered field; memory ids the model cites that were not sent are dropped. */
export function answerCandidates(answer: LlmAnswer, definition: StructureDefinition, sentMemoryIds: readonly string[]): Candidate[] {
  const sent = new Set(sentMemoryIds);
  const candidates: Candidate[] = [];
  for (const [field, entry] of Object.entries(answer.fields)) {
    if (entry === null) continue;
    const cited = [...new Set((entry.memory_ids ?? []).filter((id) => sent.has(id)))];
    const commitAt = Object.hasOwn(definition.fields, field) ? definition.fields[field]!.annotation.commitAt : DEFAULT_COMMIT_AT;
    candidates.push({
      field,
      value: entry.value as JsonValue,
      confidence: cappedConfidence(entry.confidence, cited.length > 0, commitAt),
      strategy: LLM_STRATEGY,
      sourceRefs: cited.map((id) => `memory:${id}`),
    });
  }
  return candidates;
}
