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

/** Subject lookup keys of a text (at most 8, lower case, stable order). */
export function subjectKeys(text: string): string[] {
  const keys = new Set<string>();
  const sample = text.length > 4000 ? text.slice(0, 4000) : text;
  if (FIRST_PERSON.test(sample)) keys.add('user');
  for (const m of sample.matchAll(/\p{Lu}[\p{L}\p{N}'’-]*/gu)) {
    if (keys.size >= MAX_KEYS) break;
    const key = clean(m[0]);
    if (key.length >= 2 && !FUNCTION_WORDS.has(key)) keys.add(key);
  }
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
  /** May state a single-valued attribute. */
  single: boolean;
  /** May negate a statement. */
  negation: boolean;
}

// "is a <occupation>" is a single-valued role, decided by the value: every "is a …" counts.
const SINGLE_RULES = ATTRIBUTE_RULES.filter((r) => (r.single && !r.negates) || r.attributes.includes('is-a')).map((r) => r.pattern);
const NEGATING_RULES = ATTRIBUTE_RULES.filter((r) => r.negates).map((r) => r.pattern);
const EXCLUSIVE_VALUES =
  /\b(?:vegan|vegetarian|pescatarian|pescetarian|omnivores?|omnivorous|carnivores?|carnivorous|flexitarian|single|married|divorced|widowed|separated|unmarried)\b/i;
const POSSESSIVE_IS = /(?:\b\p{L}+['’]s?|\b(?:my|our|his|her|their|your))\s+(?:[\p{L}-]+\s+){0,4}?(?:is|are|was|were|=|:)\s/iu;
const NEGATION = /\b(?:not|no|never|nor|none|neither|cannot|no\s+longer|any\s*more|used\s+to|formerly|previously|once|stopped|quit|ex)\b|n['’]t\b/i;

export function contentCues(text: string): ContentCues {
  const sample = text.length > 4000 ? text.slice(0, 4000) : text;
  const single = EXCLUSIVE_VALUES.test(sample) || POSSESSIVE_IS.test(sample) || SINGLE_RULES.some((p) => p.test(sample));
  const negation = NEGATION.test(sample) || NEGATING_RULES.some((p) => p.test(sample));
  return { single, negation };
}

/** Whether the offline detector could find a contradiction between two texts with these cues. */
export function mayContradict(a: ContentCues, b: ContentCues): boolean {
  return (a.single && b.single) || a.negation || b.negation;
}
