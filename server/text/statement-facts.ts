import { cleanTitle, looksLike, TITLE } from './fact-patterns.js';
import { ORG, PERSON, PLACE, type FactPredicate, type RawFact } from './fact-vocabulary.js';
import type { Tagger } from './pos-tagger.js';
import { clauseSpans } from './sentences.js';
import { matchAttributeRule, type RuleMatch } from './statements/extract-facts.js';
import { canonicalSubject } from './statements/subjects.js';

/**
 * Employment, leaving, roles and residence for the knowledge extractor, read by the statement rules
 * (`statements/attribute-rules.ts`) the contradiction detector reads them with, so one phrasing ("Dana
 * works at Globex", "Dana left Initech", "Dana moved to Porto", "works as a nurse") is understood once.
 * This module only maps a rule's reading to predicates and confidences (the scale of `fact-patterns.ts`):
 *   employer: works_at (present), worked_at (past), joined (a change), left (negated, "used to", quit…)
 *   role: job_title; residence: lives_in, based_in ("based in"); a former or denied home states nothing.
 * What only the knowledge side reads stays here as complements of a rule's value: a title after it
 * ("works at Acme as a designer"), an employer after a role ("works as an analyst for Acme"), the next
 * employer after leaving ("left Acme for Globex"), a workplace's city, and "works for <a person>".
 */

const SP = String.raw`[ \t]+`;
const ORG_AT_START = new RegExp(String.raw`^(?:${ORG})`, 'u');
const PLACE_AT_START = new RegExp(String.raw`^(?:${PLACE})`, 'u');
const PERSON_ONLY = new RegExp(String.raw`^(?:${PERSON})$`, 'u');
const TITLE_AFTER = new RegExp(String.raw`^(?:[^,;.]{0,40}?)?${SP}as${SP}(?:(?:the|an?)${SP})?(?<title>${TITLE})`, 'u');
const PLACE_AFTER = new RegExp(String.raw`^${SP}in${SP}(?<place>${PLACE})`, 'u');
const ORG_AFTER = new RegExp(String.raw`^${SP}(?:at|for|with)${SP}(?:the${SP})?(?<org>${ORG})`, 'u');
const NEXT_EMPLOYER = new RegExp(String.raw`^[^,;.]{0,30}?${SP}(?:for|to${SP}join)${SP}(?:the${SP})?(?<org>${ORG})`, 'u');
const PRONOUN_AT_END = /(?:^|[\s,])(I|[Hh]e|[Ss]he)$/;

type Emit = (predicate: FactPredicate, object: string, confidence: number, end: number) => void;

/** Who a rule's subject region names, as written, and where: a pronoun, "and" (the previous subject), or a name. */
function subjectOf(region: string, tag: Tagger): { who: string; at: number; rel: boolean } | null {
  const trimmed = region.replace(/[\s,]+$/u, '');
  if (!trimmed) return { who: 'and', at: 0, rel: false };
  const pronoun = PRONOUN_AT_END.exec(trimmed);
  if (pronoun) return { who: pronoun[1]!, at: trimmed.length - pronoun[1]!.length, rel: false };
  const rel = /,\s*who$/i.test(trimmed);
  const canonical = canonicalSubject(trimmed, { lastNamed: null, tag });
  if (!canonical || canonical === 'user' || canonical.includes("'")) return null;
  // The canonical subject is lower case; the name as written is the run of words it came from.
  const words = canonical.split(' ');
  const tokens = [...trimmed.matchAll(/\S+/g)];
  const norm = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}'-]/gu, '');
  for (let i = tokens.length - words.length; i >= 0; i--) {
    if (!words.every((w, j) => norm(tokens[i + j]![0]) === w)) continue;
    const first = tokens[i]!;
    const last = tokens[i + words.length - 1]!;
    const written = trimmed.slice(first.index, last.index + last[0].length).replace(/[^\p{L}\p{N}\s&.'’-]/gu, '');
    return /^\p{Lu}/u.test(written) ? { who: written, at: first.index, rel } : null;
  }
  return null;
}

function employer(found: RuleMatch, org: string, rest: string, restAt: number, base: number, emit: Emit): void {
  const { rule, tail, match } = found;
  const verb = match[0].trim().split(/\s+/)[0]!.toLowerCase();
  const modal = tail.peeled.includes('will') || tail.peeled.includes('shall');
  const upcoming = modal || /ing$/.test(verb) ? 0.7 : 1;
  const end = restAt;
  if (rule.negates) {
    if (tail.negated) return; // "did not leave Acme" states no change
    emit('left', org, 0.9 * upcoming, end);
    const next = NEXT_EMPLOYER.exec(rest);
    if (next && !modal && !looksLike(next.groups!.org!, '#Place')) emit('joined', next.groups!.org!, 0.85, restAt + next[0].length);
    return;
  }
  if (rule.tense === 'change' && !match.groups?.employed) {
    if (tail.negated || tail.formerly || (looksLike(org, '#Person') && !looksLike(org, '#Organization'))) return;
    emit('joined', org, 0.9 * upcoming, end);
    const title = TITLE_AFTER.exec(rest);
    if (title) emit('job_title', cleanTitle(title.groups!.title!), 0.85 * upcoming, restAt + title[0].length);
    return;
  }
  if (tail.negated || tail.formerly) {
    emit('left', org, base, end);
    return;
  }
  const past = rule.tense === 'past' || (tail.past && !tail.peeled.some((w) => w === 'has' || w === 'have'));
  // "works for Sam": a person, not an employer ("works at" always names a place of work).
  if (
    /\bfor\s+$/.test(match[0].slice(0, found.valueStart - match.index)) &&
    looksLike(org, '#Person') &&
    !looksLike(org, '#Organization')
  ) {
    if (!modal && !past) emit('reports_to', org, 0.7, end);
    return;
  }
  const factor = modal ? 0.6 : 1;
  emit(past ? 'worked_at' : 'works_at', org, base * factor, end);
  const title = TITLE_AFTER.exec(rest);
  if (title) emit('job_title', cleanTitle(title.groups!.title!), base * factor * (past ? 0.6 : 1), restAt + title[0].length);
  const place = PLACE_AFTER.exec(title ? rest.slice(title[0].length) : rest);
  if (place && !modal && !past) emit('based_in', place.groups!.place!, 0.7, end + (title?.[0].length ?? 0) + place[0].length);
}

function role(found: RuleMatch, rest: string, restAt: number, base: number, emit: Emit): void {
  const { rule, tail } = found;
  if (tail.negated || tail.formerly) return;
  const title = cleanTitle(found.rawValue);
  if (!title) return;
  const past = rule.tense === 'past' || (tail.past && !tail.peeled.some((w) => w === 'has' || w === 'have'));
  const factor = (past ? 0.6 : 1) * (tail.peeled.includes('will') ? 0.6 : 1);
  // One statement, one span: "works as an analyst for Acme" states the employer first, as "works at" does.
  const org = ORG_AFTER.exec(rest);
  const end = restAt + (org?.[0].length ?? 0);
  if (org) emit(past ? 'worked_at' : 'works_at', org.groups!.org!, base * (tail.peeled.includes('will') ? 0.6 : 1), end);
  emit('job_title', title, (rule.tense === 'change' ? 0.85 : base) * factor, end);
}

function residence(found: RuleMatch, place: string, end: number, rel: boolean, emit: Emit): void {
  const { rule, tail, match } = found;
  if (rule.negates || tail.negated || tail.formerly || rule.attributes.length > 1) return;
  const perfect = tail.peeled.some((w) => w === 'has' || w === 'have');
  const verb = match[0].trim().split(/\s+/)[0]!.toLowerCase();
  const modal = tail.peeled.includes('will');
  if (match.groups?.based) {
    emit('based_in', place, 0.85 * ((tail.past && !perfect) || modal ? 0.6 : 1), end);
    return;
  }
  if (rule.tense === 'past' ? !perfect : tail.past && !perfect && rule.tense === 'present') return; // a former home
  const moving = rule.tense === 'change';
  if (moving && looksLike(place, '#Organization') && !looksLike(place, '#Place')) {
    if (!/ing$/.test(verb) && !modal) emit('joined', place, 0.7, end);
    return;
  }
  // "moved to Globex" may be a new job: a destination compromise does not know as a place is less sure.
  let base = moving ? (looksLike(place, '#Place') ? 0.85 : 0.6) : /^stay/.test(verb) ? 0.6 : 0.9;
  if (rel) base = Math.min(base, 0.85);
  emit('lives_in', place, base * (modal || (moving && /ing$/.test(verb)) ? 0.7 : 1), end);
}

/** The employment, role and residence facts of one sentence, subjects as written, offsets in the sentence. */
export function statementFacts(sentence: string, tag: Tagger): RawFact[] {
  const out: RawFact[] = [];
  const clauses = clauseSpans(sentence);
  clauses.forEach((clause, i) => {
    const found = matchAttributeRule(clause.text);
    if (!found || found.rule.classify || found.tail.hypothetical) return;
    const attribute = found.rule.attributes[0];
    const subject = subjectOf(found.tail.subject, tag);
    if (!subject) return;
    // "Dana and Sam work at Acme": the clause before "and" is only a name, and shares the statement.
    const previous = clauses[i - 1];
    const subjects = [{ who: subject.who, at: subject.who === 'and' ? found.match.index : subject.at }];
    if (subject.who !== 'and' && previous && PERSON_ONLY.test(previous.text) && !matchAttributeRule(previous.text)) {
      subjects.unshift({ who: previous.text, at: previous.start - clause.start });
    }
    const written = found.rawValue;
    const name = (attribute === 'residence' ? PLACE_AT_START : ORG_AT_START).exec(written)?.[0];
    const valueEnd = found.valueStart + (attribute === 'role' ? written.length : (name?.length ?? 0));
    const rest = clause.text.slice(valueEnd);
    for (const s of subjects) {
      const emit: Emit = (predicate, object, confidence, end) =>
        out.push({ subject: s.who, predicate, object, confidence, start: clause.start + s.at, end: clause.start + end });
      const base = subject.rel ? 0.85 : 0.9;
      if (attribute === 'role') role(found, rest, valueEnd, base, emit);
      else if (!name) continue;
      else if (attribute === 'employer') employer(found, name, rest, valueEnd, base, emit);
      else if (attribute === 'residence') residence(found, name, valueEnd, subject.rel, emit);
    }
  });
  return out;
}
