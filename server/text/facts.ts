import nlp from 'compromise';
import { contactFacts, type ContactOptions } from './contact-facts.js';
import { relationalFacts } from './fact-patterns.js';
import { createTagger } from './pos-tagger.js';
import { sentenceSpans } from './sentences.js';
import { statementFacts } from './statement-facts.js';
import { normaliseName, trimName, type Fact, type FactPredicate, type RawFact } from './fact-vocabulary.js';

export { normaliseName, FACT_PREDICATES, type Fact, type FactPredicate } from './fact-vocabulary.js';

/**
 * Facts stated in free memory text ("Dana Whitfield works at Northwind as a staff engineer", "Acme's HQ
 * is in Lyon", "Sam is Dana's manager", "reach Dana at dana@northwind.io"), for the knowledge engines.
 * Sentences are cut by `sentences.ts` (the contradiction detector's splitter); compromise recognises people (for "she"/"he" and for contact details nobody is
 * named for); the phrasings themselves are patterns (`fact-patterns.ts`, `contact-facts.ts`), each with
 * its confidence on the scale documented there. On top of that, per sentence:
 *   ×0.75 a hedge before the fact ("I think", "maybe", "apparently", "I heard")
 *   ×0.5  a condition before it ("if Dana joins Acme")
 *   ×0.9  a subject resolved from "he"/"she" to the one person the previous sentences named
 * Questions state nothing and are skipped. "I"/"my"/"me" is the memory's speaker when given; without
 * one those facts are dropped. Pure and linear in the text: input and output are capped.
 *
 * Predicates: works_at / worked_at (a former employer) / joined / left (a negative fact: the subject is
 * not, or no longer, at the organisation — also from "no longer works at", "used to work at"),
 * job_title, headquartered_in, based_in, lives_in, reports_to (subject → manager), manager_of
 * (manager → report), owns / leads (person → project), status (project → planned|active|paused|done),
 * belongs_to (project → organisation), email, phone (E.164), website.
 */

export interface FactOptions extends ContactOptions {
  /** Who "I" is in this memory; without it first-person facts are skipped. */
  speaker?: string;
  /** Most facts returned per text (default 64). */
  maxFacts?: number;
}

/** Longer texts are read up to this many characters: memories are short, and the cost stays bounded. */
export const MAX_FACT_INPUT_CHARS = 20_000;
const DEFAULT_MAX_FACTS = 64;

const HEDGE =
  /\b(?:i\s+think|i\s+believe|i\s+guess|i\s+suppose|i\s+assume|i\s+heard|i\s+hear|not\s+sure|maybe|perhaps|probably|possibly|apparently|supposedly|allegedly|reportedly|rumou?red|rumou?r|seems?|seemed|iirc|if\s+i\s+remember|if\s+i\s+recall|i['’]m\s+told|i\s+was\s+told|someone\s+said|could\s+be|might\s+be|likely)\b/i;
const CONDITION = /\b(?:if|unless|whether)\b/i;
const FIRST_PERSON = /^(?:i|me|my)$/i;
const THIRD_PERSON = /^(?:he|she|him|her|his)$/i;
/** Predicates whose subject is a person: they tell "she" who was meant. */
const PERSON_PREDICATES = new Set<FactPredicate>(['works_at', 'worked_at', 'joined', 'left', 'job_title', 'lives_in', 'reports_to']);
/** Predicates whose object is a person written as a pronoun ("Sam is my manager"). */
const PERSON_OBJECTS = new Set<FactPredicate>(['reports_to', 'manager_of', 'owns', 'leads']);

interface Span {
  text: string;
  start: number;
}

interface Mention extends Span {
  kind: 'person' | 'org';
}

/** "he"/"she" and their forms, the words that make a text need its people resolved. */
const THIRD_PERSON_WORD = /\b(?:he|she|him|her|his)\b/i;

function mentionsOf(text: string): Mention[] {
  const doc = nlp(text);
  return [
    ...offsetsOf(doc.people()).map((p): Mention => ({ ...p, kind: 'person' })),
    ...offsetsOf(doc.organizations()).map((o): Mention => ({ ...o, kind: 'org' })),
  ];
}

/** Sentences or matches with their offsets (compromise's view types differ; all have `json`). */
function offsetsOf(doc: { json: (options: object) => unknown }): Span[] {
  return (doc.json({ offset: true, terms: false }) as { text: string; offset: { start: number } }[]).map((s) => ({
    text: s.text,
    start: s.offset.start,
  }));
}

function cleanMention(raw: string): string {
  return trimName(raw.replace(/['’]s?\b.*$/, '').replace(/[^\p{L}\p{N}\s&.'’-]/gu, ''));
}

/** Every fact the text states, in text order, at most `maxFacts`. */
export function extractFacts(input: string, options: FactOptions = {}): Fact[] {
  const text = input.slice(0, MAX_FACT_INPUT_CHARS);
  const maxFacts = options.maxFacts ?? DEFAULT_MAX_FACTS;
  const sentences = sentenceSpans(text);
  // compromise's parse (most of the cost) only tells who "he"/"she" is and whom a bare contact detail
  // belongs to: without a third-person pronoun it is made only if a contact detail needs it.
  let parsed: Mention[] | null = null;
  const mentions = (): Mention[] => (parsed ??= mentionsOf(text));
  const pronouns = THIRD_PERSON_WORD.test(text);

  const tag = createTagger();
  const best = new Map<string, Fact>();
  let lastPerson: string | null = null;

  // "She" is the one person named earlier in the sentence, else the one the last sentences named;
  // "and" (in "she leads Falcon and reports to Sam") is the subject of the sentence's previous fact.
  let sentencePeople: string[] = [];
  let previousSubject: string | null = null;
  const antecedent = (): string | null => {
    const distinct = new Set(sentencePeople.map(normaliseName));
    return distinct.size === 1 ? sentencePeople[0]! : distinct.size === 0 ? lastPerson : null;
  };
  const resolve = (who: string, pronounFactor: { value: number }): string | null => {
    const name = FIRST_PERSON.test(who)
      ? (options.speaker ?? null)
      : THIRD_PERSON.test(who)
        ? antecedent()
        : who === 'and'
          ? previousSubject
          : trimName(who);
    if ((THIRD_PERSON.test(who) || who === 'and') && name) pronounFactor.value = 0.9;
    return name && normaliseName(name) ? name : null;
  };

  for (const sentence of sentences) {
    if (best.size >= maxFacts * 2) break;
    const end = sentence.start + sentence.text.length;
    let inSentenceMemo: Mention[] | null = pronouns ? mentions().filter((m) => m.start >= sentence.start && m.start < end) : null;
    const inSentence = (): Mention[] => (inSentenceMemo ??= mentions().filter((m) => m.start >= sentence.start && m.start < end));
    const names = (): string[] => [
      ...new Set(
        inSentence()
          .map((m) => cleanMention(m.text))
          .filter((n) => normaliseName(n)),
      ),
    ];
    const people = new Set<string>();
    previousSubject = null;

    if (!/\?\s*$/.test(sentence.text)) {
      const raws: RawFact[] = [
        ...statementFacts(sentence.text, tag),
        ...relationalFacts(sentence.text),
        ...contactFacts(sentence.text, names, options),
      ].sort((a, b) => a.start - b.start);
      for (const raw of raws) {
        sentencePeople = [
          ...(pronouns ? inSentence() : [])
            .filter((m) => m.kind === 'person' && m.start - sentence.start < raw.start)
            .map((m) => cleanMention(m.text)),
          ...people,
        ].filter(Boolean);
        const factor = { value: 1 };
        const subject = resolve(raw.subject, factor);
        let object: string | null = raw.object;
        if (PERSON_OBJECTS.has(raw.predicate) && (FIRST_PERSON.test(object) || THIRD_PERSON.test(object))) {
          object = resolve(object, factor);
        } else if (raw.predicate !== 'email' && raw.predicate !== 'phone' && raw.predicate !== 'website') {
          object = trimName(object) || null;
        }
        if (!subject || !object || normaliseName(subject) === normaliseName(object)) continue;
        const before = sentence.text.slice(0, raw.end);
        const hedge = HEDGE.test(before) ? 0.75 : 1;
        const condition = CONDITION.test(before) ? 0.5 : 1;
        const confidence = Math.round(raw.confidence * hedge * condition * factor.value * 100) / 100;
        const fact: Fact = {
          subject,
          predicate: raw.predicate,
          object,
          confidence,
          span: [sentence.start + raw.start, sentence.start + raw.end],
        };
        const key = `${normaliseName(subject)}\u0000${raw.predicate}\u0000${normaliseName(object)}`;
        const seen = best.get(key);
        if (!seen || seen.confidence < confidence) best.set(key, fact);
        previousSubject = subject;
        if (PERSON_PREDICATES.has(raw.predicate)) people.add(subject);
      }
    }
    for (const m of pronouns ? inSentence() : []) if (m.kind === 'person' && cleanMention(m.text)) people.add(cleanMention(m.text));
    // "She" means the one person the last sentence naming anyone named; after two, nobody.
    const distinct = new Set([...people].map(normaliseName));
    if (distinct.size === 1) lastPerson = [...people][0]!;
    else if (distinct.size > 1) lastPerson = null;
  }
  return [...best.values()].sort((a, b) => a.span[0] - b.span[0] || a.span[1] - b.span[1]).slice(0, maxFacts);
}
