/**
 * The quality formula shared by the NLP score (`quality.ts`) and its fast estimate
 * (`memories/quick-quality.ts`): the same length, diversity, structure, penalties and weights; only
 * how specificity and the presence of a verb are detected differs between the two.
 */

export interface QualityInput {
  content: string;
  title?: string | undefined;
  tags?: readonly string[] | undefined;
}

/** Text past this is not read (a memory's first 20,000 characters say what it is about). */
export const MAX_CHARS = 20_000;
const LENGTH_SATURATION_WORDS = 25;
const WEIGHTS = { length: 0.35, diversity: 0.2, specificity: 0.3, structure: 0.15 } as const;

/** Whole-text placeholders ("test", "asdf", "lorem ipsum…") that say nothing about anything. */
const BOILERPLATE = new RegExp(
  '^(?:' +
    [
      'test(?:ing)?(?: \\d+)?',
      'asdf\\w*',
      'qwerty\\w*',
      'foo(?: bar)?(?: baz)?',
      'bar',
      'baz',
      'hello(?: world)?',
      'hi',
      'hey',
      'todo',
      'tbd',
      'tba',
      'n ?a',
      'none',
      'null',
      'nil',
      'undefined',
      'untitled',
      'placeholder',
      'sample(?: text)?',
      'example(?: text)?',
      'dummy(?: text)?',
      'x+',
      'lorem ipsum.*',
      'blah(?: blah)*',
      'note',
      'memory',
      'nothing',
      'empty',
      'ok(?:ay)?',
      'yes',
      'no',
      'abc',
      '123',
      'text',
      'content',
      'description',
      'my memory',
      'new memory',
      'this is a test',
    ].join('|') +
    ')$',
);

export function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

function isGibberish(word: string): boolean {
  if (!/^\p{Script=Latin}+$/u.test(word)) return false;
  const w = word.toLowerCase();
  if (/(.)\1{3,}/.test(w)) return true;
  if (w.length >= 4 && !/[aeiouy]/.test(w)) return true;
  return /[bcdfghjklmnpqrstvwxz]{5,}/.test(w);
}

/** The parts of the text every scorer reads, or null when it has fewer than two letters (score 0). */
export interface QualityText {
  content: string;
  letters: number;
  words: string[];
  lower: string[];
  /** 0..1: grows with the word count, saturating at 25 words. */
  length: number;
  /** 0..1: share of distinct words (type-token ratio 0.3 → 0, 0.7 → 1). */
  diversity: number;
}

export function readQualityText(raw: string): QualityText | null {
  const content = raw.normalize('NFKC').slice(0, MAX_CHARS).trim();
  const letters = (content.match(/\p{L}/gu) ?? []).length;
  if (letters < 2) return null;
  const words = content.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const lower = words.map((w) => w.toLowerCase());
  const length = clamp01(Math.log2(1 + words.length) / Math.log2(1 + LENGTH_SATURATION_WORDS));
  const diversity = clamp01((new Set(lower).size / words.length - 0.3) / 0.4);
  return { content, letters, words, lower, length, diversity };
}

/** Specificity from distinct anchors (names, numbers, dates) and other nouns; saturates at 3. */
export function specificityOf(anchors: number, nouns: number): number {
  return clamp01((anchors + 0.5 * nouns) / 3);
}

/** 0.5 for a verb (a statement rather than a fragment), 0.25 each for a title and for tags. */
export function structureOf(hasVerb: boolean, memory: QualityInput): number {
  let structure = hasVerb ? 0.5 : 0;
  if (memory.title?.trim()) structure += 0.25;
  if (memory.tags?.some((t) => t.trim())) structure += 0.25;
  return structure;
}

/** ×0.2 for a placeholder, × the share of non-gibberish words, and less for mostly-symbol text. */
export function penaltyOf(text: QualityText): number {
  let penalty = 1;
  if (BOILERPLATE.test(text.lower.join(' ').replace(/['’]/g, ''))) penalty *= 0.2;
  penalty *= 1 - text.words.filter(isGibberish).length / text.words.length;
  const letterShare = text.letters / text.content.replace(/\s+/g, '').length;
  if (letterShare < 0.5) penalty *= letterShare / 0.5;
  return penalty;
}

/** The weighted sum times the penalty, in [0, 1], rounded to 3 decimals. */
export function combineQuality(
  parts: { length: number; diversity: number; specificity: number; structure: number },
  penalty: number,
): number {
  const raw =
    WEIGHTS.length * parts.length +
    WEIGHTS.diversity * parts.diversity +
    WEIGHTS.specificity * parts.specificity +
    WEIGHTS.structure * parts.structure;
  return Math.round(clamp01(raw * penalty) * 1000) / 1000;
}
