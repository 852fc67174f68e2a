/** Who a statement is about: a subject phrase resolved to a canonical subject. */
import { createTagger, type Tagger, type TermJson } from '../pos-tagger.js';

const FIRST_PERSON = new Set(['i', 'me', 'myself', 'user', 'the user']);
const THIRD_PERSON = new Set(['he', 'she', 'they', 'him', 'her', 'them']);
const NON_NAME_TAGS = ['Pronoun', 'Determiner', 'Preposition', 'Conjunction', 'Date', 'Value', 'Adverb', 'Possessive', 'QuestionWord'];

export function isName(t: TermJson): boolean {
  if (!/^\p{Lu}/u.test(t.text) || t.text === 'I') return false;
  if (t.tags.some((tag) => NON_NAME_TAGS.includes(tag))) return false;
  return true;
}

export interface SubjectContext {
  lastNamed: string | null;
  tag?: Tagger;
  /** Who "I" is: the speaker of a transcript line ("Peter: I moved…"), otherwise the user. */
  self?: string;
}

/** Canonical subject of a subject phrase, or null when there is none (or it cannot be resolved). */
export function canonicalSubject(phrase: string, ctx: SubjectContext = { lastNamed: null }): string | null {
  const cleaned = phrase.replace(/^[\s,]+|[\s,]+$/g, '').replace(/\s+/g, ' ');
  if (!cleaned) return null;
  const lower = cleaned.toLowerCase();
  const lastWord = lower.split(' ').at(-1) ?? '';
  const self = ctx.self ?? 'user';
  if (FIRST_PERSON.has(lower) || lower.endsWith(' i') || lower === 'the user')
    return lower === 'user' || lower === 'the user' ? 'user' : self;
  if (THIRD_PERSON.has(lastWord) && !/\p{Lu}/u.test(cleaned.slice(1))) return ctx.lastNamed;
  const terms = (ctx.tag ?? createTagger())(cleaned);
  // Runs of name terms; possessives end a run and are remembered as owners.
  const runs: Array<{ words: string[]; person: boolean }> = [];
  let current: { words: string[]; person: boolean } | null = null;
  let owner: string | null = null;
  for (const t of terms) {
    if (t.tags.includes('Possessive')) {
      const base = t.text.replace(/'s?$/i, '').toLowerCase();
      owner = base === 'my' || base === 'our' ? self : base;
      current = null;
      continue;
    }
    if (isName(t)) {
      if (current === null) {
        current = { words: [], person: false };
        runs.push(current);
      }
      current.words.push(t.text.toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, ''));
      if (t.tags.includes('Person')) current.person = true;
    } else {
      current = null;
    }
  }
  const chosen = [...runs].reverse().find((r) => r.person) ?? runs.at(-1);
  if (chosen) return chosen.words.join(' ');
  const nouns = terms.filter((t) => t.tags.includes('Noun') && !t.tags.includes('Pronoun') && !t.tags.includes('Possessive'));
  const head = nouns
    .at(-1)
    ?.text.toLowerCase()
    .replace(/[^\p{L}\p{N}-]/gu, '');
  if (!head) return owner;
  if (head === 'user') return 'user';
  return owner ? `${owner}'s ${head}` : head;
}

export function sameSubject(a: string, b: string): boolean {
  if (a === b) return true;
  const ta = a.split(' ');
  const tb = b.split(' ');
  const [small, big] = ta.length <= tb.length ? [ta, tb] : [tb, ta];
  return !a.includes("'") && !b.includes("'") && small.every((w) => big.includes(w));
}
