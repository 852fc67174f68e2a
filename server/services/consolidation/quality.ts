/**
 * Quality score of a memory in [0, 1], computed at consolidation and used by search's
 * `min_quality` soft threshold. Pure and deterministic.
 *
 * score = clamp01( (0.35·length + 0.20·diversity + 0.30·specificity + 0.15·structure) × penalties )
 *
 *  - length      informative words (tokens with a letter or digit), log-scaled and saturating at
 *                25 words: log2(1 + n) / log2(26). One word ≈ 0.21, five ≈ 0.55, 25+ = 1.
 *  - diversity   type/token ratio of lower-cased words mapped linearly from 0.3 (→ 0) to 0.7 (→ 1):
 *                "buy milk buy milk buy milk" scores 0.
 *  - specificity concrete anchors found by compromise — people, places, organisations, other proper
 *                nouns, numbers/values and dates — counted once each, plus half a point per distinct
 *                common noun: min(1, (anchors + 0.5·nouns) / 3). "Alice likes stuff" = 0.5.
 *  - structure   0.5 when the text has a verb (a statement rather than a fragment), +0.25 for a
 *                non-empty title, +0.25 for at least one tag.
 *  - penalties   (multiplied)
 *       boilerplate: the whole text is a placeholder ("test", "asdf", "todo", "n/a", "lorem ipsum …",
 *                    "hello world", …) → × 0.2;
 *       gibberish:   × (1 − share of Latin-script words that look like keyboard mashing: no vowel in
 *                    4+ letters, 5+ consonants in a row, or a character repeated 4+ times);
 *       symbols:     when letters are under half of the non-space characters → × (letter share / 0.5).
 * Text with fewer than two letters scores 0 (near-empty or pure noise such as "!!!" or "1234").
 * Only the first 20,000 characters are analysed, and only the first 2,000 are tagged by compromise
 * (specificity and structure saturate long before that; tagging is the expensive part).
 */
import nlp from 'compromise';
import { combineQuality, penaltyOf, readQualityText, specificityOf, structureOf, type QualityInput } from './quality-formula.js';

export type { QualityInput };

/** The parts of the score, for explanation and tests. */
export interface QualityBreakdown {
  score: number;
  length: number;
  diversity: number;
  specificity: number;
  structure: number;
  penalty: number;
}

const MAX_NLP_CHARS = 2_000;

/** The score with its components (see module comment). */
export function qualityBreakdown(memory: QualityInput): QualityBreakdown {
  const text = readQualityText(memory.content);
  if (!text) return { score: 0, length: 0, diversity: 0, specificity: 0, structure: 0, penalty: 0 };

  const doc = nlp(text.content.slice(0, MAX_NLP_CHARS));
  const anchors = new Set<string>();
  const collect = (list: unknown) => {
    if (Array.isArray(list)) for (const s of list) if (typeof s === 'string' && s.trim()) anchors.add(s.trim().toLowerCase());
  };
  collect(doc.people().out('array'));
  collect(doc.places().out('array'));
  collect(doc.organizations().out('array'));
  collect(doc.match('#ProperNoun+').out('array'));
  collect(doc.match('#Value+').out('array'));
  collect(doc.match('#Date+').out('array'));
  const nounList: unknown = doc.match('#Noun').not('#ProperNoun').not('#Pronoun').not('#Value').not('#Date').out('array');
  const nouns = new Set(
    Array.isArray(nounList)
      ? nounList
          .map((x) =>
            String(x)
              .toLowerCase()
              .replace(/[^\p{L}\p{N}]/gu, ''),
          )
          .filter(Boolean)
      : [],
  );

  const parts = {
    length: text.length,
    diversity: text.diversity,
    specificity: specificityOf(anchors.size, nouns.size),
    structure: structureOf(doc.verbs().length > 0, memory),
  };
  const penalty = penaltyOf(text);
  return { score: combineQuality(parts, penalty), ...parts, penalty };
}

/** Quality of a memory in [0, 1] (see module comment for the heuristic). */
export function qualityScore(memory: QualityInput): number {
  return qualityBreakdown(memory).score;
}
