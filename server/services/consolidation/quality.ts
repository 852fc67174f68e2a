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

export interface QualityInput {
  content: string;
  title?: string | undefined;
  tags?: readonly string[] | undefined;
}

/** The parts of the score, for explanation and tests. */
export interface QualityBreakdown {
  score: number;
  length: number;
  diversity: number;
  specificity: number;
  structure: number;
  penalty: number;
}

const MAX_CHARS = 20_000;
const MAX_NLP_CHARS = 2_000;
const LENGTH_SATURATION_WORDS = 25;
const WEIGHTS = { length: 0.35, diversity: 0.2, specificity: 0.3, structure: 0.15 } as const;

const BOILERPLATE = new RegExp(
  '^(?:' +
    [
      'test(?:ing)?(?: \\d+)?', 'asdf\\w*', 'qwerty\\w*', 'foo(?: bar)?(?: baz)?', 'bar', 'baz', 'hello(?: world)?', 'hi', 'hey',
      'todo', 'tbd', 'tba', 'n ?a', 'none', 'null', 'nil', 'undefined', 'untitled', 'placeholder', 'sample(?: text)?',
      'example(?: text)?', 'dummy(?: text)?', 'x+', 'lorem ipsum.*', 'blah(?: blah)*', 'note', 'memory', 'nothing', 'empty',
      'ok(?:ay)?', 'yes', 'no', 'abc', '123', 'text', 'content', 'description', 'my memory', 'new memory', 'this is a test',
    ].join('|') +
    ')$',
);

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

function isGibberish(word: string): boolean {
  if (!/^\p{Script=Latin}+$/u.test(word)) return false;
  const w = word.toLowerCase();
  if (/(.)\1{3,}/.test(w)) return true;
  if (w.length >= 4 && !/[aeiouy]/.test(w)) return true;
  return /[bcdfghjklmnpqrstvwxz]{5,}/.test(w);
}

/** The score with its components (see module comment). */
export function qualityBreakdown(memory: QualityInput): QualityBreakdown {
  const content = memory.content.normalize('NFKC').slice(0, MAX_CHARS).trim();
  const letters = (content.match(/\p{L}/gu) ?? []).length;
  if (letters < 2) return { score: 0, length: 0, diversity: 0, specificity: 0, structure: 0, penalty: 0 };

  const words = content.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const n = words.length;
  const length = clamp01(Math.log2(1 + n) / Math.log2(1 + LENGTH_SATURATION_WORDS));

  const lower = words.map((w) => w.toLowerCase());
  const ttr = new Set(lower).size / n;
  const diversity = clamp01((ttr - 0.3) / 0.4);

  const doc = nlp(content.slice(0, MAX_NLP_CHARS));
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
  const nouns = new Set(Array.isArray(nounList) ? nounList.map((x) => String(x).toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')).filter(Boolean) : []);
  const specificity = clamp01((anchors.size + 0.5 * nouns.size) / 3);

  let structure = doc.verbs().length > 0 ? 0.5 : 0;
  if (memory.title?.trim()) structure += 0.25;
  if (memory.tags?.some((t) => t.trim())) structure += 0.25;

  let penalty = 1;
  const normalized = lower.join(' ').replace(/['’]/g, '');
  if (BOILERPLATE.test(normalized)) penalty *= 0.2;
  const gibberish = words.filter(isGibberish).length / n;
  penalty *= 1 - gibberish;
  const nonSpace = content.replace(/\s+/g, '').length;
  const letterShare = letters / nonSpace;
  if (letterShare < 0.5) penalty *= letterShare / 0.5;

  const raw =
    WEIGHTS.length * length + WEIGHTS.diversity * diversity + WEIGHTS.specificity * specificity + WEIGHTS.structure * structure;
  const score = Math.round(clamp01(raw * penalty) * 1000) / 1000;
  return { score, length, diversity, specificity, structure, penalty };
}

/** Quality of a memory in [0, 1] (see module comment for the heuristic). */
export function qualityScore(memory: QualityInput): number {
  return qualityBreakdown(memory).score;
}
