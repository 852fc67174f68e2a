/**
 * Contradiction detection between a newer and an older memory.
 *
 * Offline detector (pure, deterministic): a small fact extractor turns each text into
 * (subject, attribute, value, negated, tense) facts, and two facts contradict when they share a
 * subject and an attribute and
 *   - their values are the same but one is negated ("Dan is vegetarian" / "Dan is not vegetarian"), or
 *   - the attribute is single-valued, both are affirmative and the values differ ("Alice lives in
 *     Paris" / "Alice moved to Berlin": residence; "Carol's favourite colour is blue" / "… green").
 * Facts only conflict within the same tense: "Alice lived in Paris" (past) does not contradict
 * "Alice lives in Berlin". "used to …" / "formerly …" read as a negated present fact.
 *
 * Extraction:
 *   1. contractions are expanded, sentences split (on . ! ? except after abbreviations and initials),
 *      clauses split on ";", "and", "but";
 *      questions and conditional clauses ("if …", "when …") are skipped;
 *   2. a possessive form "<owner>'s <attribute> is <value>" (favourite X, age, wife, job, …);
 *   3. otherwise the table `ATTRIBUTE_RULES` of verb patterns (residence: lives in / moved to /
 *      relocated to / is based in; employer: works at/for, joined, was hired by; role: works as,
 *      is a <occupation>; spouse: married to; age; origin; birthplace; diet and marital status as
 *      exclusive groups of "is <adjective>"; other "is <adjective>" as a multi-valued state);
 *   4. otherwise a generic "<subject> <verb> <object>" fact (multi-valued, so only negation conflicts:
 *      "Alice visited Rome" / "Alice visited Paris" is no contradiction).
 * The subject is the text before the predicate, with auxiliaries, negations and adverbs peeled off
 * its end; compromise then picks the proper noun (the last person name, else the last proper noun),
 * "I"/"me" → "user" (or the speaker of a transcript line such as "[time] Peter: I moved…", when the
 * label is a person's name), "the user" → "user", he/she/they → the previous named subject of the same text, else the
 * head noun. Place, organisation and person values must be proper names (capitalised) — "lives in a
 * flat" is not a residence. Values are compared after normalisation; one value contained in the
 * other ("Paris" / "Paris, France", "Acme" / "Acme Corp") or places of different granularity
 * (city vs country/region, per compromise's gazetteer) are compatible.
 *
 * The parts live in `contradiction/` (text, tagger, subjects, values, attribute rules, extraction).
 * `LlmContradictionDetector` (`adapters/llm/contradiction-detector.ts`) asks an OpenAI-compatible
 * chat-completions endpoint instead and falls back to this detector on any error.
 */
import type { ContradictionDetector, ContradictionInput, ContradictionResult } from '../../ports/contradiction-detector.js';
import { EXCLUSIVE_GROUPS, compatibleValues } from '../../text/statements/values.js';
import { extractFacts } from '../../text/statements/extract-facts.js';
import type { Fact } from '../../text/statements/facts.js';
import { sameSubject } from '../../text/statements/subjects.js';
import { createTagger, type Tagger } from '../../text/pos-tagger.js';

export type { ContradictionDetector, ContradictionInput, ContradictionResult } from '../../ports/contradiction-detector.js';
export { ATTRIBUTE_RULES, type AttributeRule, type TenseMode } from '../../text/statements/attribute-rules.js';
export { MAX_FACT_TEXT_CHARS, extractFacts } from '../../text/statements/extract-facts.js';
export type { Fact, Tense, ValueKind } from '../../text/statements/facts.js';
export { canonicalSubject } from '../../text/statements/subjects.js';
export { createTagger, type Tagger, type TermJson } from '../../text/pos-tagger.js';

function describe(f: Fact): string {
  return `${f.negated ? 'not ' : ''}"${f.value}"${f.tense === 'past' ? ' (past)' : ''}`;
}

/** Compare two fact lists; the first conflicting pair wins (newer facts in order). */
export function compareFacts(newer: readonly Fact[], older: readonly Fact[], tag: Tagger = createTagger()): ContradictionResult {
  for (const n of newer) {
    for (const o of older) {
      if (n.attribute !== o.attribute || !sameSubject(n.subject, o.subject) || n.tense !== o.tense) continue;
      const same = compatibleValues(n, o, tag);
      const valueConflict = !same && n.single && o.single && !n.negated && !o.negated && n.tense === 'present';
      const negationConflict = n.value === o.value || (same && !EXCLUSIVE_GROUPS[n.attribute]) ? n.negated !== o.negated : false;
      if (valueConflict || negationConflict) {
        return {
          contradicts: true,
          subject: n.subject.length <= o.subject.length ? n.subject : o.subject,
          attribute: n.attribute,
          reason: `${n.attribute} of ${n.subject}: newer says ${describe(n)}, older says ${describe(o)}`,
          detector: 'offline',
        };
      }
    }
  }
  return { contradicts: false, detector: 'offline' };
}

/** Offline contradiction check of a newer memory against an older one. */
export function detectContradiction(newer: ContradictionInput, older: ContradictionInput): ContradictionResult {
  const tag = createTagger();
  return compareFacts(extractFacts(newer.content, tag), extractFacts(older.content, tag), tag);
}

/** The offline detector behind the `ContradictionDetector` interface. */
export class OfflineContradictionDetector implements ContradictionDetector {
  detect(newer: ContradictionInput, older: ContradictionInput): Promise<ContradictionResult> {
    return Promise.resolve(detectContradiction(newer, older));
  }
}
