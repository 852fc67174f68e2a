/** Fact extraction: a text's sentences and clauses turned into (subject, attribute, value, negated, tense) facts. */
import nlp from 'compromise';
import { ATTRIBUTE_RULES, POSSESSIVE, type AttributeRule, POSSESSIVE_ALIASES, SINGLE_POSSESSIVE } from './attribute-rules.js';
import type { Fact, Tense, ValueKind } from './facts.js';
import { canonicalSubject, isName, type SubjectContext } from './subjects.js';
import { createTagger, rememberShared, type Tagger } from '../pos-tagger.js';
import { clauses, expandContractions, sentences } from '../sentences.js';
import { cutValue, normalizeValue } from './values.js';

const TAIL_WORDS = new Set([
  'is',
  'am',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'has',
  'have',
  'had',
  'does',
  'do',
  'did',
  'will',
  'shall',
  'not',
  'never',
  'no',
  'longer',
  'now',
  'currently',
  'still',
  'also',
  'already',
  'recently',
  'just',
  'finally',
  'actually',
  'really',
  'always',
  'usually',
  'often',
  'happily',
  'officially',
  'reportedly',
  'apparently',
  'got',
  'get',
  'gets',
  'getting',
  'originally',
  'formerly',
  'previously',
  'once',
  'used',
  'to',
  'permanently',
  'temporarily',
  'eventually',
  'since',
]);
const MODALS = new Set([
  'would',
  'could',
  'might',
  'may',
  'should',
  'must',
  'can',
  'wants',
  'want',
  'wanted',
  'plans',
  'planned',
  'hopes',
  'hoped',
  'wishes',
  'wished',
  'considering',
  'thinking',
]);

export interface Tail {
  /** The subject region once auxiliaries, negations and adverbs are peeled off its end. */
  subject: string;
  /** The peeled words, lower case, in text order ("has", "not", "will"). */
  peeled: readonly string[];
  negated: boolean;
  past: boolean;
  formerly: boolean;
  hypothetical: boolean;
}

/** Peel auxiliaries, negations and adverbs off the end of the subject region (contractions expanded first). */
function peelTail(region: string): Tail {
  // The detector's text is expanded already; the knowledge extractor's is as written ("doesn’t").
  const written = /['’‘`]/.test(region) ? expandContractions(region) : region;
  const words = written.trim().split(/\s+/).filter(Boolean);
  const peeled: string[] = [];
  while (words.length > 0 && TAIL_WORDS.has(words.at(-1)!.toLowerCase())) peeled.unshift(words.pop()!.toLowerCase());
  const last = words.at(-1)?.toLowerCase() ?? '';
  const joined = ` ${peeled.join(' ')} `;
  const formerly = / used to /.test(joined) || / formerly | previously | once /.test(joined);
  const danglingTo = peeled[0] === 'to' || (/ to /.test(joined) && !/ used to /.test(joined));
  return {
    subject: words.join(' '),
    peeled,
    negated: / not | never /.test(joined) || / no longer /.test(joined),
    past: / was | were | had | did /.test(joined),
    formerly,
    hypothetical: MODALS.has(last) || danglingTo,
  };
}

function isProper(raw: string): boolean {
  return /^\p{Lu}/u.test(raw.trim());
}

interface ClauseContext extends SubjectContext {
  lastSubject: string | null;
  tag: Tagger;
}

function makeFact(
  subject: string,
  attribute: string,
  rawValue: string,
  opts: { negated: boolean; tense: Tense; single: boolean; kind: ValueKind },
): Fact | null {
  const value = normalizeValue(rawValue, opts.kind);
  if (!value) return null;
  if ((opts.kind === 'place' || opts.kind === 'org' || opts.kind === 'person') && !isProper(rawValue)) return null;
  return { subject, attribute, value, negated: opts.negated, tense: opts.tense, single: opts.single, kind: opts.kind };
}

function resolveSubject(region: string, ctx: ClauseContext): string | null {
  if (!region.trim()) return ctx.lastSubject;
  if (/[.!?]/.test(region) || region.split(/\s+/).length > 8) return null;
  return canonicalSubject(region, ctx);
}

function remember(ctx: ClauseContext, subject: string): void {
  ctx.lastSubject = subject;
  if (subject !== 'user' && subject !== ctx.self && !subject.includes("'")) ctx.lastNamed = subject;
}

function possessiveFacts(clause: string, ctx: ClauseContext): Fact[] | null {
  const m = POSSESSIVE.exec(clause);
  if (!m?.groups) return null;
  const ownerPhrase = m.groups.owner ?? '';
  const ownerRaw = ownerPhrase.replace(/(?:'s|s')$/u, '');
  const owner = /\b(?:my|our)$/i.test(ownerPhrase)
    ? (ctx.self ?? 'user')
    : /\b(?:his|her|their)$/i.test(ownerPhrase)
      ? ctx.lastNamed
      : resolveSubject(ownerRaw, ctx);
  if (!owner) return null;
  const attrText = normalizeValue(m.groups.attr ?? '', 'text');
  const attribute = POSSESSIVE_ALIASES[attrText] ?? attrText;
  const single = SINGLE_POSSESSIVE.test(attribute);
  const rawValue = cutValue(m.groups.value ?? '');
  const kind: ValueKind = attribute === 'age' ? 'number' : attribute === 'spouse' ? 'person' : attribute === 'employer' ? 'org' : 'text';
  const fact = makeFact(owner, attribute.replace(/\s+/g, '-'), rawValue, {
    negated: Boolean(m.groups.neg),
    tense: 'present',
    single,
    kind,
  });
  remember(ctx, owner);
  return fact ? [fact] : [];
}

/** The first attribute rule a clause states, read but not yet resolved: the knowledge extractor maps these too. */
export interface RuleMatch {
  rule: AttributeRule;
  match: RegExpExecArray;
  tail: Tail;
  /** The value as written, cut at its first stop word; `valueStart` is its offset in the clause. */
  rawValue: string;
  valueStart: number;
}

export function matchAttributeRule(clause: string): RuleMatch | null {
  for (const rule of ATTRIBUTE_RULES) {
    const m = rule.pattern.exec(clause);
    if (!m?.groups) continue;
    const written = m.groups.value ?? '';
    const rawValue = cutValue(written);
    const valueStart = m.index + m[0].lastIndexOf(written) + Math.max(0, written.indexOf(rawValue));
    return { rule, match: m, tail: peelTail(clause.slice(0, m.index)), rawValue, valueStart };
  }
  return null;
}

function ruleFacts(clause: string, ctx: ClauseContext): Fact[] | null {
  const found = matchAttributeRule(clause);
  if (found) {
    const { rule, match: m, tail, rawValue } = found;
    if (tail.hypothetical) return [];
    const subject = resolveSubject(tail.subject, ctx);
    if (!subject) return [];
    remember(ctx, subject);
    const classified = rule.classify ? rule.classify(rawValue, ctx.tag) : { attribute: rule.attributes[0] ?? '', single: rule.single };
    if (classified === null) return [];
    let negated = tail.negated || Boolean(m.groups?.neg);
    let tense: Tense = rule.tense === 'past' || (rule.tense === 'present' && tail.past) ? 'past' : 'present';
    if (rule.tense === 'change' && tail.past && tail.negated) tense = 'past';
    if (rule.negates) negated = !negated;
    if (tail.formerly) {
      negated = true;
      tense = 'present';
    }
    const attributes = rule.classify ? [classified.attribute] : rule.attributes;
    const facts: Fact[] = [];
    for (const attribute of attributes) {
      const kind: ValueKind = rule.attributes.length > 1 ? (attribute === 'residence' ? 'place' : 'org') : rule.kind;
      const fact = makeFact(subject, attribute, rawValue, { negated, tense, single: classified.single, kind });
      if (fact) facts.push(fact);
    }
    if (attributes.includes('spouse') && !negated && tense === 'present') {
      facts.push({ subject, attribute: 'marital-status', value: 'married', negated: false, tense, single: true, kind: 'text' });
    }
    return facts;
  }
  return null;
}

const AUX_TAGS = ['Auxiliary', 'Copula', 'Modal'];

const infinitives = new Map<string, string>();

function infinitive(verb: string): string {
  let base = infinitives.get(verb);
  if (base === undefined) {
    base = (nlp(verb).verbs().toInfinitive().text() || verb).toLowerCase();
    rememberShared(infinitives, verb, base);
  }
  return base;
}

function genericFacts(clause: string, ctx: ClauseContext): Fact[] {
  const terms = ctx.tag(clause);
  let idx = -1;
  for (let i = 1; i < terms.length && idx < 0; i++) {
    const t = terms[i]!;
    if (t.tags.includes('Auxiliary') && !t.tags.includes('Copula')) {
      // "does not like": the word after the auxiliary and its negation is the verb, whatever its tag.
      let j = i + 1;
      while (j < terms.length && terms[j]!.tags.some((g) => g === 'Negative' || g === 'Adverb')) j++;
      if (j < terms.length && !isName(terms[j]!) && /^\p{Ll}/u.test(terms[j]!.text)) idx = j;
    } else if (t.tags.includes('Verb') && !t.tags.some((g) => AUX_TAGS.includes(g)) && !isName(t)) {
      idx = i;
    }
  }
  if (idx <= 0) return [];
  const verb = terms[idx]!;
  const tail = peelTail(
    terms
      .slice(0, idx)
      .map((t) => t.text)
      .join(' '),
  );
  if (tail.hypothetical) return [];
  const subject = resolveSubject(tail.subject, ctx);
  if (!subject) return [];
  remember(ctx, subject);
  const inf = infinitive(verb.text);
  const object = cutValue(
    terms
      .slice(idx + 1)
      .map((t) => t.text)
      .join(' '),
  );
  const past = verb.tags.includes('PastTense') || tail.past;
  const fact = makeFact(subject, inf, object, {
    negated: tail.negated || tail.formerly,
    tense: past && !tail.formerly ? 'past' : 'present',
    single: false,
    kind: 'text',
  });
  return fact ? [fact] : [];
}

/** Only the beginning of a text is analysed (≈ 40 sentences), which bounds the cost. */
export const MAX_FACT_TEXT_CHARS = 4_000;

/** Extract the facts stated in a text (its first MAX_FACT_TEXT_CHARS characters). Deterministic; order follows the text. */
export function extractFacts(text: string, tag: Tagger = createTagger()): Fact[] {
  const ctx: ClauseContext = { lastNamed: null, lastSubject: null, tag };
  text = text.slice(0, MAX_FACT_TEXT_CHARS);
  const speaker = transcriptSpeaker(text, tag);
  if (speaker) {
    ctx.self = speaker.name;
    text = text.slice(speaker.labelLength);
  }
  const facts: Fact[] = [];
  for (const sentence of sentences(text)) {
    if (/\?\s*$/.test(sentence)) continue;
    ctx.lastSubject = null;
    for (const clause of clauses(sentence)) {
      if (/^(?:if|when|whenever|unless|whether|once|before|after|maybe|perhaps)\b/i.test(clause)) continue;
      const found = possessiveFacts(clause, ctx) ?? ruleFacts(clause, ctx) ?? genericFacts(clause, ctx);
      facts.push(...found);
    }
  }
  return facts;
}

/** "[time] Name: …" or "Name: …": a line of a conversation, whose first person is its speaker. */
const SPEAKER_LABEL = /^\s*(?:\[[^\]\n]{1,80}\]\s*)?(\p{Lu}[\p{L}'-]*(?:\s\p{Lu}[\p{L}'-]*){0,2}):\s+/u;

/**
 * The speaker of a transcript line, when its label is a person's name. Agents often store chat turns
 * as memories; without this, every speaker's "I" was the same "user", so "Susan: I'm up for the
 * challenge" and "Peter: I'm not gonna give up" contradicted each other. A label that is not a name
 * ("Note: I moved to Berlin") leaves "I" as the user.
 */
function transcriptSpeaker(text: string, tag: Tagger): { name: string; labelLength: number } | null {
  const m = SPEAKER_LABEL.exec(text);
  if (!m) return null;
  const terms = tag(m[1]!);
  if (terms.length === 0 || !terms.every((t) => t.tags.includes('Person') || t.tags.includes('ProperNoun'))) return null;
  if (!terms.some((t) => t.tags.includes('Person'))) return null;
  return { name: m[1]!.toLowerCase(), labelLength: m[0].length };
}
