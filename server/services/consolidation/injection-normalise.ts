/** Normalisation for the injection screen: invisible characters stripped, look-alikes folded, light obfuscation undone. */
import { RULE_KEYWORDS } from './injection-text-rules.js';

/** Zero-width and other invisible format characters (ZWSP, ZWNJ, ZWJ, WJ, invisible operators, BOM, Mongolian VS, Hangul fillers, CGJ). */
// eslint-disable-next-line no-misleading-character-class -- each joiner and filler is listed to be stripped on its own
export const ZERO_WIDTH = /[\u200B\u200C\u200D\u2060-\u2064\uFEFF\u180E\u034F\u115F\u1160\u3164\uFFA0]/gu;
export const BIDI = /[\u202A-\u202E\u2066-\u2069]/gu;
export const TAG_CHARS = /[\u{E0000}-\u{E007F}]/gu;
/** Emoji subdivision flags (🏴 + tag letters + cancel tag) are legitimate uses of tag characters. */
export const EMOJI_TAG_SEQUENCE = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,7}\u{E007F}/gu;
/** ZWJ / ZWNJ inside emoji sequences or non-Latin scripts (Persian, Indic, …) are legitimate. */
export const LEGIT_JOINER =
  // eslint-disable-next-line no-misleading-character-class -- the joiners are matched alone, after the character they follow
  /(?<=[\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\uFE0F]|[^\P{L}\p{Script=Latin}])[\u200C\u200D]|[\u200C\u200D](?=\p{Extended_Pictographic})/gu;
export const INVISIBLE_ALL =
  // eslint-disable-next-line no-misleading-character-class -- each invisible character is listed to be stripped on its own
  /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u180E\u034F\u115F\u1160\u3164\uFFA0]|[\u{E0000}-\u{E007F}]/gu;

/** Cyrillic and Greek letters that render like Latin ones. */
const CONFUSABLES: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ӏ: 'l',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  ɑ: 'a',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  У: 'Y',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ε: 'e',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
};
const CONFUSABLE_CLASS = `[${Object.keys(CONFUSABLES).join('')}]`;
const CONFUSABLE_CHARS = new RegExp(CONFUSABLE_CLASS, 'gu');
const HAS_CONFUSABLE = new RegExp(CONFUSABLE_CLASS, 'u');

function foldConfusables(text: string): string {
  // Only inside words that also contain a Latin letter: real Russian or Greek text is untouched.
  return text.replace(/[\p{L}\p{M}]+/gu, (word) =>
    /\p{Script=Latin}/u.test(word) && HAS_CONFUSABLE.test(word) ? word.replace(CONFUSABLE_CHARS, (c) => CONFUSABLES[c] ?? c) : word,
  );
}

/** NFKC, invisible characters removed, confusables folded, lower case: where every form starts. */
export function foldForScreening(text: string): string {
  return foldConfusables(text.normalize('NFKC').replace(INVISIBLE_ALL, '')).toLowerCase();
}

export function collapseWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n[\s]*/g, '\n')
    .trim();
}

/**
 * The normalised form used for matching: NFKC, invisible characters removed, confusables folded,
 * lower case, runs of spaces collapsed (line breaks kept as single "\n").
 */
export function normalizeForScreening(text: string): string {
  return collapseWhitespace(foldForScreening(text));
}

/** Four or more single letters on one line, each 1–3 non-letters apart ("i g n o r e", "i.g.n.o", "i-g-n"). */
const LETTER_RUN = /(?<![\p{L}\p{N}])\p{L}(?:[^\p{L}\p{N}\n]{1,3}\p{L}(?![\p{L}\p{N}])){3,}/gu;
const SQUASHED_MAX_CHARS = 300;

/**
 * Re-joins letter-spaced text before spaces are collapsed: the most frequent gap separates letters and
 * any other gap separates words ("i g n o r e  p r e v i o u s" → "ignore previous"). A run whose gaps
 * are all alike carries no word breaks; its letters are also returned in `squashed`.
 */
export function collapseLetterSpacing(text: string, squashed: string[] = []): string {
  return text.replace(LETTER_RUN, (run) => {
    const letters = run.match(/\p{L}/gu) ?? [];
    const gaps = run.split(/\p{L}/u).slice(1, -1);
    const counts = new Map<string, number>();
    for (const g of gaps) counts.set(g, (counts.get(g) ?? 0) + 1);
    const inner = [...counts.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    if (counts.size === 1) {
      if (letters.length <= SQUASHED_MAX_CHARS) squashed.push(letters.join(''));
      return letters.join('');
    }
    return letters.map((l, i) => (i > 0 && gaps[i - 1] !== inner ? ` ${l}` : l)).join('');
  });
}

const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
  '!': 'i',
  '€': 'e',
};

/**
 * The de-obfuscated form: markdown emphasis removed, s p a c e d / d.o.t.t.e.d single letters
 * re-joined, and leetspeak undone inside words that mix letters with digits or symbols. "1" and "|"
 * can stand for "i" or "l": the reading that gives a keyword of the rule catalogue wins ("a11" →
 * "all", "1nstruct1ons" → "instructions"), else "i".
 */
export function deobfuscate(normalized: string): string {
  return normalized
    .replace(/[*_~`]+/g, '')
    .replace(/(?<![\p{L}])(?:\p{L}[ .-]){3,}\p{L}(?![\p{L}])/gu, (run) => run.replace(/[ .-]/g, ''))
    .replace(/[\p{L}\d@$!|€]+/gu, (token) => {
      if (!/\p{L}/u.test(token) || !/[\d@$!|€]/.test(token)) return token;
      const read = (one: string) => token.replace(/[1|]|\d|[@$!€](?=[\p{L}\d])/gu, (c) => (c === '1' || c === '|' ? one : (LEET[c] ?? c)));
      const asL = read('l');
      return RULE_KEYWORDS.has(asL) && !RULE_KEYWORDS.has(read('i')) ? asL : read('i');
    });
}
