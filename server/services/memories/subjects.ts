/**
 * Cheap text signals for consolidation (pure, regex only, microseconds per text), used to find and
 * pre-filter candidates before the expensive NLP of the contradiction detector runs:
 *
 *  - `subjectKeys`: what a memory is about, as lookup keys of the `memory_subjects` index: every
 *    capitalised word that is not a function word ("Alice", "Paris", "Acme" → alice, paris, acme),
 *    `user` for first-person texts ("I", "my", "the user"), and otherwise the first content word.
 *    Two memories about the same subject share a key; keys over-approximate (that is fine: they only
 *    select candidates, the detectors decide).
 *  - `contentCues`: whether a text can state a single-valued attribute (residence, employer, role,
 *    spouse, age, origin, diet, marital status, a possessive "X's favourite colour is …") or a
 *    negation ("not", "never", "no longer", "used to", "left", "quit", "divorced", …). The offline
 *    detector can only find a contradiction between two texts when both state single-valued
 *    attributes or at least one negates, so a pair failing `mayContradict` is never sent to it.
 */
import { ATTRIBUTE_RULES } from '../consolidation/contradiction.js';

const FUNCTION_WORDS = new Set(
  (
    'a an the this that these those there here it its is are was were be been am do does did has have had will would can could ' +
    'should shall may might must not no never and or but if then so as at by for from in into of on to with without about after ' +
    'before during since until while when where why how what which who whom whose i me my mine we us our ours you your yours he ' +
    'him his she her hers they them their theirs note notes today yesterday tomorrow monday tuesday wednesday thursday friday ' +
    'saturday sunday january february march april june july august september october november december also please remember ' +
    'user users'
  ).split(' '),
);

const FIRST_PERSON = /\b(?:I|me|my|mine|myself|we|us|our|ours)\b|\b(?:the\s+)?user(?:'s)?\b/i;

const MAX_KEYS = 8;

function clean(word: string): string {
  return word
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’]s$/u, '')
    .replace(/[^\p{L}\p{N}-]/gu, '');
}

/**
 * Subject lookup keys of a text (at most 8, lower case), most specific first: multi-word names
 * ("alice smith"), then single capitalised words, then `user` for first-person texts; otherwise the
 * first content word. Candidate lookups read keys in this order.
 */
export function subjectKeys(text: string): string[] {
  const keys = new Set<string>();
  const sample = text.length > 4000 ? text.slice(0, 4000) : text;
  const runs = nameRuns(sample);
  for (const run of runs) if (run.length > 1 && keys.size < 3) keys.add(run.join(' '));
  for (const run of runs) for (const word of run) if (keys.size < MAX_KEYS) keys.add(word);
  if (FIRST_PERSON.test(sample) && keys.size < MAX_KEYS) keys.add('user');
  if (keys.size === 0) {
    for (const m of sample.matchAll(/[\p{L}][\p{L}\p{N}'’-]*/gu)) {
      const key = clean(m[0]);
      if (key.length >= 3 && !FUNCTION_WORDS.has(key)) {
        keys.add(key);
        break;
      }
    }
  }
  return [...keys];
}

export interface ContentCues {
  /**
   * Single-valued attributes the text may state (`residence`, `employer`, `role`, `spouse`, `age`,
   * `origin`, …, `exclusive` for diet and marital status); `*` for a possessive "X's … is …", which
   * can name any attribute.
   */
  single: ReadonlySet<string>;
  /** May negate a statement. */
  negation: boolean;
  /** Runs of capitalised words (lower case), e.g. ["alice smith", "paris"]; names the subject may be. */
  names: readonly string[][];
  /** Speaks in the first person or about "the user". */
  firstPerson: boolean;
}

// "is a <occupation>" is a single-valued role, decided by the value: every "is a …" counts as a role.
const SINGLE_RULES = ATTRIBUTE_RULES.filter((r) => (r.single && !r.negates) || r.attributes.includes('is-a')).map((r) => ({
  pattern: r.pattern,
  attributes: r.attributes.map((a) => (a === 'is-a' ? 'role' : a)),
}));
const NEGATING_RULES = ATTRIBUTE_RULES.filter((r) => r.negates).map((r) => r.pattern);
const EXCLUSIVE_VALUES =
  /\b(?:vegan|vegetarian|pescatarian|pescetarian|omnivores?|omnivorous|carnivores?|carnivorous|flexitarian|single|married|divorced|widowed|separated|unmarried)\b/i;
const POSSESSIVE_IS = /(?:\b\p{L}+['’]s?|\b(?:my|our|his|her|their|your))\s+(?:[\p{L}-]+\s+){0,4}?(?:is|are|was|were|=|:)\s/iu;
const NEGATION =
  /\b(?:not|no|never|nor|none|neither|cannot|no\s+longer|any\s*more|used\s+to|formerly|previously|once|stopped|quit|ex)\b|n['’]t\b/i;

function nameRuns(text: string): string[][] {
  const runs: string[][] = [];
  let current: string[] | null = null;
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’-]*|[^\s\p{L}\p{N}]+/gu)) {
    const word = m[0];
    const key = /^\p{Lu}/u.test(word) ? clean(word) : '';
    if (key.length >= 2 && !FUNCTION_WORDS.has(key)) {
      if (!current) runs.push((current = []));
      current.push(key);
    } else current = null;
  }
  return runs;
}

export function contentCues(text: string): ContentCues {
  const sample = text.length > 4000 ? text.slice(0, 4000) : text;
  const single = new Set<string>();
  if (POSSESSIVE_IS.test(sample)) single.add('*');
  if (EXCLUSIVE_VALUES.test(sample)) single.add('exclusive');
  for (const rule of SINGLE_RULES) if (rule.pattern.test(sample)) for (const a of rule.attributes) single.add(a);
  const negation = NEGATION.test(sample) || NEGATING_RULES.some((p) => p.test(sample));
  return { single, negation, names: nameRuns(sample), firstPerson: FIRST_PERSON.test(sample) };
}

/** One run's words all appear in the other's ("alice" / "alice smith"), as the detector compares subjects. */
function compatibleRuns(a: readonly string[][], b: readonly string[][]): boolean {
  for (const x of a) {
    for (const y of b) {
      const [small, big] = x.length <= y.length ? [x, y] : [y, x];
      if (small.every((w) => big.includes(w))) return true;
    }
  }
  return false;
}

/**
 * Whether the offline detector could find a contradiction between two texts with these cues: they may
 * share a subject (both first person, or compatible names, or at least one without any name — its
 * subject is then a common noun we cannot rule out), and either one negates or both may state the
 * same single-valued attribute. A conservative filter: it only skips pairs the detector cannot flag.
 */
export function mayContradict(a: ContentCues, b: ContentCues): boolean {
  const subject = (a.firstPerson && b.firstPerson) || a.names.length === 0 || b.names.length === 0 || compatibleRuns(a.names, b.names);
  if (!subject) return false;
  if (a.negation || b.negation) return true;
  if (a.single.size === 0 || b.single.size === 0) return false;
  if (a.single.has('*') || b.single.has('*')) return true;
  for (const attr of a.single) if (b.single.has(attr)) return true;
  return false;
}
