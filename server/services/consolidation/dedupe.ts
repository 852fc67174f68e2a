/**
 * Near-duplicate detection for consolidation (pure).
 *
 * A candidate is a duplicate of an existing memory when
 *  1. exact: their normalised contents are equal (see `normalizeText`; similarity 1), or
 *  2. near: `textSimilarity` of the compared texts is ≥ `NEAR_DUPLICATE_THRESHOLD` (0.9) AND
 *     neither guard below fires.
 *
 * Guards (a near match is refused, an exact match never is):
 *  - numbers differ: the sets of numeric tokens differ ("meeting at 3pm" vs "at 4pm" is an update,
 *    not a duplicate, however long the surrounding text);
 *  - polarity differs: one text carries a negation word (not, no, never, dont, …) the other lacks.
 *
 * Titles: when both sides have a title, it is prepended to the content on both sides before
 * scoring, so equal titles reinforce a near match and different titles weaken it. Exact matching
 * uses the content alone (same body = same memory, whatever the title).
 */
import { normalizeText, textSimilarity, tokenize } from './similarity.js';

export { contentFingerprint } from './similarity.js';

/** Minimum similarity for a near duplicate. See the module comment and test/unit/dedupe.test.ts. */
export const NEAR_DUPLICATE_THRESHOLD = 0.9;

export interface DedupeCandidate {
  content: string;
  title?: string | undefined;
}

export interface DedupeExisting extends DedupeCandidate {
  id: string;
}

export interface DuplicateMatch {
  id: string;
  /** 1 for an exact (normalised) match, else the near-duplicate similarity in [threshold, 1]. */
  similarity: number;
}

export interface FindDuplicateOptions {
  /** Near-duplicate threshold in (0, 1]; default `NEAR_DUPLICATE_THRESHOLD`. */
  threshold?: number;
}

const NEGATIONS = new Set([
  'not',
  'no',
  'never',
  'nor',
  'none',
  'nobody',
  'nothing',
  'neither',
  'nowhere',
  'without',
  'cannot',
  'cant',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'arent',
  'wasnt',
  'werent',
  'wont',
  'wouldnt',
  'shouldnt',
  'couldnt',
  'hasnt',
  'havent',
  'hadnt',
  'aint',
]);

function numericTokens(tokens: readonly string[]): string {
  return [...new Set(tokens.filter((t) => /\d/.test(t)))].sort().join(' ');
}

function hasNegation(tokens: readonly string[]): boolean {
  return tokens.some((t) => NEGATIONS.has(t));
}

function comparable(item: DedupeCandidate, other: DedupeCandidate): string {
  const useTitle = Boolean(item.title?.trim()) && Boolean(other.title?.trim());
  return useTitle ? `${item.title}\n${item.content}` : item.content;
}

/**
 * Near-duplicate similarity of two memories, or 0 when a guard refuses the pair (see module
 * comment). Exact normalised content equality scores 1.
 */
export function duplicateSimilarity(a: DedupeCandidate, b: DedupeCandidate): number {
  if (normalizeText(a.content) === normalizeText(b.content)) return 1;
  const ta = tokenize(a.content);
  const tb = tokenize(b.content);
  if (numericTokens(ta) !== numericTokens(tb)) return 0;
  if (hasNegation(ta) !== hasNegation(tb)) return 0;
  return textSimilarity(comparable(a, b), comparable(b, a));
}

/**
 * The existing memory the candidate duplicates, or null. An exact match wins at once (first in
 * list order); otherwise the most similar near match at or above the threshold (ties: earliest).
 */
export function findDuplicate(
  candidate: DedupeCandidate,
  existing: readonly DedupeExisting[],
  options: FindDuplicateOptions = {},
): DuplicateMatch | null {
  const threshold = options.threshold ?? NEAR_DUPLICATE_THRESHOLD;
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError('threshold must be in (0, 1]');
  const key = normalizeText(candidate.content);
  for (const e of existing) {
    if (normalizeText(e.content) === key) return { id: e.id, similarity: 1 };
  }
  let best: DuplicateMatch | null = null;
  for (const e of existing) {
    const similarity = duplicateSimilarity(candidate, e);
    if (similarity >= threshold && (best === null || similarity > best.similarity)) {
      best = { id: e.id, similarity };
    }
  }
  return best;
}
