import { ACRONYM_TITLES, CAP, ORG, PERSON, PLACE, type FactPredicate, type RawFact } from './fact-vocabulary.js';
import { phraseHasTag } from './pos-tagger.js';

/**
 * The relational phrasings only the knowledge extractor reads: titles (with their employer), headquarters,
 * reporting lines, project ownership and status. Employment verbs, leaving, "works as" and residence are
 * the statement rules' (`statements/attribute-rules.ts`, mapped by `statement-facts.ts`). Each rule is one regular expression over one sentence (every
 * quantifier bounded, so a sentence is scanned in linear time) and a function turning a match into
 * raw facts. Subjects are returned as written ("Dana", "I", "She"); `facts.ts` resolves them.
 *
 * Confidence scale (before the sentence-level hedge of `facts.ts`):
 *   0.9  a plain present statement ("Dana works at Northwind", "Acme is headquartered in Lyon")
 *   0.85 an indirect form: appositive, relative clause, possessive title, "moved to", a passive
 *   0.8  a bare title without an organisation, "Lyon-based Acme"
 *   ×0.6 past tense of a present-only fact ("Dana was a PM") or a modal/future ("will join")
 * Negated statements emit nothing, except about employment, where they emit `left` (a negative fact).
 */

const SP = String.raw`[ \t]+`;
const TITLE_HEADS =
  'engineer|developer|programmer|designer|architect|manager|director|president|founder|co-founder|cofounder|' +
  'analyst|scientist|researcher|consultant|leader|lead|head|officer|intern|specialist|administrator|admin|accountant|' +
  'lawyer|attorney|counsel|nurse|doctor|physician|teacher|professor|lecturer|editor|writer|journalist|recruiter|' +
  'coordinator|partner|principal|associate|executive|chef|owner|strategist|marketer|advisor|adviser|' +
  'technician|operator|assistant|secretary|chair|chairman|chairwoman|chairperson|ceo|cto|cfo|coo|cpo|cmo|cio|' +
  'ciso|vp|svp|evp|gm|pm|em|tpm|sre|qa|representative|salesperson|agent|officer|producer|product owner|' +
  'scrum master|tester|economist|statistician|pharmacist|dentist|surgeon|paralegal|auditor|controller|treasurer|' +
  'librarian|photographer|illustrator|copywriter|trainer|coach|mentor|supervisor|foreman|clerk|cashier|barista';
/** Each head as written in lower case and capitalised ("Staff Engineer"); JS has no inline case-insensitivity. */
const HEADS = TITLE_HEADS.split('|')
  .flatMap((h) => [h, h.replace(/(^|\s)\p{Ll}/gu, (c) => c.toUpperCase())])
  .join('|');
/** Words that never modify a title ("happy with the designer" is no title). */
const NOT_MODIFIER = String.raw`(?:with|the|a|an|and|or|to|of|for|at|in|on|by|not|is|was|his|her|their|our|my|your|its|who|that|as|from|than)\b`;
/** A job title: up to four modifiers and a head noun, with a lowercase "of" complement ("head of sales"). */
export const TITLE = String.raw`(?:(?!${NOT_MODIFIER})[\p{L}-]+${SP}){0,4}?(?:${HEADS}|${ACRONYM_TITLES})s?(?![\p{L}-])(?:${SP}of${SP}[a-z][\w-]*(?:${SP}[a-z][\w-]*)?(?=${SP}(?:at|for|with|in)\b|[,.;]|$))?`;
/** Words between a subject and its verb: auxiliaries, negation, adverbs. Read by `readGap`. */
const GAP_WORD = String.raw`not|n['’]t|never|no${SP}longer|still|also|now|currently|already|just|recently|actually|really|has|have|had|does|do|did|doesn['’]t|don['’]t|didn['’]t|isn['’]t|aren['’]t|wasn['’]t|hasn['’]t|haven['’]t|won['’]t|is|are|was|were|am|will|would|might|may|could|should|must|be|been|being|going${SP}to|about${SP}to|used${SP}to|officially|finally|[a-z]+ly`;
const GAP = String.raw`(?<gap>(?:['’](?:s|m|re|ve|d|ll)(?![\p{L}]))?(?:${SP}(?:${GAP_WORD})){0,6})`;
const LEFT_EDGE = String.raw`(?<![\p{L}\p{N}'’])`;
/** Subject, optional contraction ("Dana's been", "I'm"), optional relative clause ("Dana, who ..."), gap. */
const SUBJECT = String.raw`${LEFT_EDGE}(?<subj>${PERSON}|I|[Hh]e|[Ss]he|and)(?:${SP}and${SP}(?<subj2>${PERSON}))?(?<rel>,${SP}who)?${GAP}`;

/** Evaluative words people put before a title that are not part of it ("a brilliant engineer"). */
const EVALUATIVE = new Set(
  'great good brilliant amazing nice talented excellent fantastic awesome terrible bad lovely fine solid strong real true super very quite pretty really wonderful skilled experienced'.split(
    ' ',
  ),
);
/** Titles that name a relation to a person, not a job ("Sam is Dana's manager"). */
const RELATIONAL = /^(?:manager|boss|line manager|supervisor|team lead|team leader|lead|mentor|direct report|report)$/i;

interface Modality {
  negated: boolean;
  modal: boolean;
  perfect: boolean;
  pastAux: boolean;
  usedTo: boolean;
  copula: boolean;
}

function readGap(gap: string | undefined): Modality {
  const g = (gap ?? '').toLowerCase();
  return {
    negated: /\b(?:not|never|no\s+longer)\b|n['’]t\b/.test(g),
    modal: /\b(?:will|would|might|may|could|should|going\s+to|about\s+to)\b|won['’]t|['’]ll\b/.test(g),
    perfect: /\b(?:has|have)\b|['’]ve\b/.test(g),
    pastAux: /\b(?:was|were|had|did)\b|wasn['’]t|didn['’]t/.test(g),
    usedTo: /\bused\s+to\b/.test(g),
    copula: /\b(?:is|are|was|were|am|be|been)\b|isn['’]t|aren['’]t|wasn['’]t|^['’](?:s|m|re)\b/.test(g),
  };
}

export function cleanTitle(raw: string): string {
  const words = raw.trim().split(/[ \t]+/);
  while (words.length > 1 && (EVALUATIVE.has(words[0]!.toLowerCase()) || /ly$/i.test(words[0]!))) words.shift();
  return words.join(' ');
}

/** compromise's reading of a short phrase ("#Person", "#Place", "#Organization"), through the shared tag memo. */
export function looksLike(phrase: string, tag: '#Person' | '#Place' | '#Organization'): boolean {
  return phraseHasTag(phrase, tag.slice(1));
}

type Groups = Record<string, string | undefined>;
interface Rule {
  /** A cheap test for the rule's keywords: most sentences skip most rules without running the pattern. */
  needs: RegExp;
  re: RegExp;
  emit: (g: Groups, add: (subject: string, predicate: FactPredicate, object: string, confidence: number) => void) => void;
}

const rule = (needs: RegExp, source: string, emit: Rule['emit']): Rule => ({ needs, re: new RegExp(source, 'gu'), emit });
/** Any title head, for the rules that need one. */
const HAS_TITLE = new RegExp(String.raw`\b(?:${TITLE_HEADS}|${ACRONYM_TITLES})`, 'i');

/** Employment stated with an organisation: title and org, or a negation/past that makes it `left`/`worked_at`. */
function employment(add: Parameters<Rule['emit']>[1], subj: string, org: string, m: Modality, past: boolean, base: number, title?: string) {
  // "Dana is the owner of Project Falcon" is ownership, said by another rule, not employment.
  if (/^project\b|\bproject$/i.test(org)) return;
  if (m.negated || m.usedTo) {
    add(subj, 'left', org, base);
    return;
  }
  const factor = m.modal ? 0.6 : 1;
  if (past && !m.perfect) {
    add(subj, 'worked_at', org, base * factor);
    if (title) add(subj, 'job_title', cleanTitle(title), base * 0.6 * factor);
    return;
  }
  add(subj, 'works_at', org, base * factor);
  if (title) add(subj, 'job_title', cleanTitle(title), base * factor);
}

const PROJECT = String.raw`(?:[Pp]roject${SP})?${ORG}(?:${SP}project)?`;
const STATES: [RegExp, string][] = [
  [/^(?:on hold|paused|shelved|frozen)$/, 'paused'],
  [/^(?:done|complete|completed|finished|shipped|launched|delivered|wrapped up|live)$/, 'done'],
  [/^(?:underway|under way|in progress|active|kicked off|started|running)$/, 'active'],
  [/^(?:planned|scheduled|proposed)$/, 'planned'],
];

export const RULES: Rule[] = [
  // "Dana is a product manager at Globex", "Dana was the VP of Engineering at Acme", "Dana became CTO of Acme"
  rule(
    HAS_TITLE,
    String.raw`${SUBJECT}(?<became>${SP}(?:became|becomes|is${SP}now))?${SP}(?<det>(?:an?|the|our|their|its)${SP})?(?<title>${TITLE})(?:${SP}of${SP}(?<dept>${CAP}(?:${SP}${CAP})?)(?=${SP}at${SP}))?(?:${SP}(?:at|of|for|with|in)${SP}(?:the${SP})?(?<org>${ORG}))?`,
    (g, add) => {
      const m = readGap(g.gap);
      if ((!m.copula && !g.became) || m.negated) return;
      // "Dana's a nurse" is a copula, "Dana's manager" a possessive: only a determiner tells them apart.
      if (/^['’]s\b/.test(g.gap!) && !g.det && g.gap!.length <= 2) return;
      const title = g.dept ? `${g.title} of ${g.dept}` : g.title!;
      if (RELATIONAL.test(cleanTitle(title))) return;
      const past = m.pastAux && !m.perfect;
      if (g.org && !looksLike(g.org, '#Place')) {
        employment(add, g.subj!, g.org, m, past, g.rel ? 0.85 : 0.9, title);
      } else {
        add(g.subj!, 'job_title', cleanTitle(title), 0.8 * (past ? 0.6 : 1) * (m.modal ? 0.6 : 1));
      }
    },
  ),
  // "Dana is Acme's CTO"
  rule(HAS_TITLE, String.raw`${SUBJECT}${SP}(?<org>${ORG})['’]s?${SP}(?:new${SP})?(?<title>${TITLE})`, (g, add) => {
    const m = readGap(g.gap);
    if (!m.copula || m.negated || RELATIONAL.test(cleanTitle(g.title!))) return;
    employment(add, g.subj!, g.org!, m, m.pastAux && !m.perfect, 0.85, g.title);
  }),
  // "Dana Whitfield, CTO of Acme," / "Dana, a product manager at Globex," / "Dana, Acme's CTO,"
  rule(
    HAS_TITLE,
    String.raw`${LEFT_EDGE}(?<subj>${PERSON}),${SP}(?:(?:an?|the|our)${SP})?(?:(?<title>${TITLE})${SP}(?:at|of|for|with)${SP}(?:the${SP})?(?<org>${ORG})|(?<org2>${ORG})['’]s${SP}(?<title2>${TITLE}))`,
    (g, add) => {
      const title = g.title ?? g.title2!;
      if (RELATIONAL.test(cleanTitle(title))) return;
      employment(add, g.subj!, g.org ?? g.org2!, readGap(''), false, 0.85, title);
    },
  ),
  // "Acme's CTO, Dana Whitfield," / "Acme CTO Dana Whitfield"
  rule(
    HAS_TITLE,
    String.raw`${LEFT_EDGE}(?<org>${ORG})(?:['’]s${SP}(?<title>${TITLE}),?|${SP}(?<acr>${ACRONYM_TITLES}))${SP}(?<subj>${PERSON})`,
    (g, add) => {
      const title = g.title ?? g.acr!;
      if (RELATIONAL.test(cleanTitle(title))) return;
      employment(add, g.subj!, g.org!, readGap(''), false, 0.85, title);
    },
  ),
  // "Acme is headquartered in Lyon", "Acme is HQ'd out of Lyon" ("based in" is a statement rule's)
  rule(
    /\b(?:headquartered|HQ)/,
    String.raw`${LEFT_EDGE}(?<subj>${ORG})${GAP}${SP}(?:headquartered|HQ['’]?d)${SP}(?:in|out${SP}of)${SP}(?<place>${PLACE})`,
    (g, add) => {
      const m = readGap(g.gap);
      if (!m.copula || m.negated) return;
      add(g.subj!, 'headquartered_in', g.place!, 0.9 * ((m.pastAux && !m.perfect) || m.modal ? 0.6 : 1));
    },
  ),
  // "Acme, a robotics firm headquartered in Lyon,", "Acme, based in Lyon,"
  rule(
    /\b(?:headquartered|based|located)/,
    String.raw`${LEFT_EDGE}(?<subj>${ORG}),${SP}(?:(?:an?|the)${SP}[^,;.]{0,40}?${SP})?(?<verb>headquartered|based|located)${SP}in${SP}(?<place>${PLACE})`,
    (g, add) => add(g.subj!, g.verb === 'headquartered' ? 'headquartered_in' : 'based_in', g.place!, 0.85),
  ),
  // "Acme's HQ is in Lyon", "Acme's headquarters moved to Lyon", "Acme has its head office in Lyon"
  rule(
    /\b(?:HQ|headquarters|head.office|main office|home base|corporate office)/,
    String.raw`${LEFT_EDGE}(?<subj>${ORG})(?:['’]s?|${SP}(?:has|have|keeps|moved|relocated)${SP}(?:its|their))${SP}(?:HQ|headquarters|head${SP}office|head-office|main${SP}office|home${SP}base|corporate${SP}office)${GAP}(?:${SP}(?:moved|relocated|sits|lies|located|based))?${SP}(?:in|to)${SP}(?<place>${PLACE})`,
    (g, add) => {
      const m = readGap(g.gap);
      if (m.negated) return;
      add(g.subj!, 'headquartered_in', g.place!, 0.9 * ((m.pastAux && !m.perfect) || m.modal ? 0.6 : 1));
    },
  ),
  // "Lyon-based Acme", "the Lyon-based startup Acme", "Acme is a Lyon-based robotics company"
  rule(
    /-based\b/,
    String.raw`${LEFT_EDGE}(?:(?<place>${PLACE})-based${SP}(?:[a-z][\w-]*${SP}){0,3}(?<subj>${ORG})|(?<subj2>${ORG})${SP}(?:is|was)${SP}an?${SP}(?<place2>${PLACE})-based)`,
    (g, add) => add(g.subj ?? g.subj2!, 'based_in', g.place ?? g.place2!, g.subj ? 0.8 : 0.85),
  ),
  // "Dana calls Porto home"
  rule(/\bhome\b/, String.raw`${LEFT_EDGE}(?<subj>${PERSON}|I)${SP}(?:calls|call)${SP}(?<place>${PLACE})${SP}home\b`, (g, add) =>
    add(g.subj!, 'lives_in', g.place!, 0.85),
  ),
  // "Dana reports to Sam", "Dana works under Sam", "Dana is managed by Sam"
  rule(
    /\b(?:report|under|managed by|supervised by)/,
    String.raw`${SUBJECT}${SP}(?<verb>reports|report|reporting|reported|works${SP}under|work${SP}under|working${SP}under|managed${SP}by|supervised${SP}by)(?:${SP}directly)?(?:${SP}to)?${SP}(?<obj>${PERSON}|me)`,
    (g, add) => {
      const m = readGap(g.gap);
      if (m.negated || m.modal) return;
      const past = (g.verb === 'reported' || m.pastAux) && !m.perfect && !/by$/.test(g.verb!);
      add(g.subj!, 'reports_to', g.obj!, (/by$/.test(g.verb!) ? 0.85 : 0.9) * (past ? 0.6 : 1));
    },
  ),
  // "Dana's manager is Sam", "My boss is Sam", "Her direct report is Lee"
  rule(
    /\b(?:manager|boss|supervisor|lead|report)/,
    String.raw`${LEFT_EDGE}(?<subj>${PERSON}|[Mm]y|[Hh]is|[Hh]er)(?:['’]s)?${SP}(?:(?:new|current|direct|line)${SP})?(?<rel>manager|boss|supervisor|team${SP}lead|team${SP}leader|lead|report)${SP}(?<cop>is|was|['’]s)${SP}(?:now${SP})?(?<obj>${PERSON})`,
    (g, add) => {
      const factor = g.cop === 'was' ? 0.6 : 1;
      if (g.rel === 'report') add(g.subj!, 'manager_of', g.obj!, 0.85 * factor);
      else add(g.subj!, 'reports_to', g.obj!, 0.9 * factor);
    },
  ),
  // "Sam is Dana's manager", "Sam is my boss"
  rule(
    /\b(?:manager|boss|supervisor|lead)/,
    String.raw`${SUBJECT}${SP}(?<obj>${PERSON}|my|his|her)(?:['’]s)?${SP}(?:(?:new|current|direct|line)${SP})?(?:manager|boss|supervisor|team${SP}lead|team${SP}leader)\b`,
    (g, add) => {
      const m = readGap(g.gap);
      if (!m.copula || m.negated || m.modal) return;
      add(g.subj!, 'manager_of', g.obj!, 0.9 * (m.pastAux && !m.perfect ? 0.6 : 1));
    },
  ),
  // "Sam manages Dana" (a person) or "Sam manages Project Falcon" (a project)
  rule(
    /\b(?:manag|supervis)/,
    String.raw`${SUBJECT}${SP}(?<verb>manages|manage|managing|managed|supervises|supervised)${SP}(?:the${SP})?(?<obj>${PROJECT})`,
    (g, add) => {
      const m = readGap(g.gap);
      if (m.negated || m.modal) return;
      const past = g.verb!.endsWith('ed') && !m.perfect ? 0.6 : 1;
      const obj = g.obj!;
      const isProject = /project/i.test(obj) || !looksLike(obj, '#Person');
      add(g.subj!, isProject ? 'leads' : 'manager_of', obj, 0.9 * past);
    },
  ),
  // "Dana leads Project Falcon", "Dana owns the Falcon project", "Dana is the owner of Falcon"
  rule(
    /\b(?:lead|led|run|ran|own|head|driv|drove|charge|responsible)/,
    String.raw`${SUBJECT}${SP}(?<verb>leads|lead|leading|led|runs|run|running|ran|owns|own|owning|owned|heads|heading|headed|drives|driving|drove|in${SP}charge${SP}of|responsible${SP}for|the${SP}(?:owner|lead|leader|head|driver|DRI|PM|product${SP}owner|tech${SP}lead|project${SP}lead|project${SP}manager)${SP}(?:of|on|for))${SP}(?:the${SP})?(?<obj>${PROJECT})`,
    (g, add) => {
      const m = readGap(g.gap);
      if (m.negated) return;
      const verb = g.verb!;
      if (/^(?:the|in|responsible)/.test(verb) && !m.copula) return;
      if (verb === 'owned' && m.copula) return; // "Dana is owned by" is not this phrasing
      const owns = /^(?:own|the owner|the product|responsible|the DRI)/.test(verb);
      const past = /^(?:led|ran|owned|headed|drove)$/.test(verb) || (m.pastAux && !m.perfect) ? 0.6 : 1;
      add(g.subj!, owns ? 'owns' : 'leads', g.obj!, 0.9 * past * (m.modal ? 0.6 : 1));
    },
  ),
  // "Project Falcon is owned by Dana", "The Falcon project is led by Dana"
  rule(
    /\bby\b/,
    String.raw`${LEFT_EDGE}(?<obj>${PROJECT})${GAP}${SP}(?<verb>owned|led|run|headed|driven|managed|overseen)${SP}by${SP}(?<subj>${PERSON}|me)`,
    (g, add) => {
      const m = readGap(g.gap);
      if (!m.copula || m.negated) return;
      const factor = (m.pastAux && !m.perfect) || m.modal ? 0.6 : 1;
      add(g.subj!, g.verb === 'owned' ? 'owns' : 'leads', g.obj!, 0.85 * factor);
    },
  ),
  // "Project Falcon is on hold", "The Falcon project shipped", "Project Falcon has been completed"
  rule(
    /project/i,
    String.raw`${LEFT_EDGE}(?<proj>[Pp]roject${SP}${CAP}(?:${SP}${CAP}){0,3}|${CAP}(?:${SP}${CAP}){0,3}${SP}project)${GAP}(?:${SP}(?:been|got|went|was))?(?:${SP}put)?${SP}(?<state>on${SP}hold|paused|shelved|frozen|done|complete|completed|finished|shipped|launched|delivered|wrapped${SP}up|live|underway|under${SP}way|in${SP}progress|active|kicked${SP}off|started|running|planned|scheduled|proposed)\b`,
    (g, add) => {
      const m = readGap(g.gap);
      if (m.negated || m.modal) return;
      const said = g.state!.replace(/\s+/g, ' ');
      const state = STATES.find(([re]) => re.test(said))?.[1];
      if (state) add(g.proj!, 'status', state, 0.85);
    },
  ),
  // "Project Falcon is an Acme project", "Acme's Project Falcon"
  rule(
    /project/i,
    String.raw`${LEFT_EDGE}(?:(?<proj>${PROJECT})${GAP}${SP}an?${SP}(?<org>${ORG})${SP}project\b|(?<org2>${ORG})['’]s${SP}(?<proj2>[Pp]roject${SP}${CAP}(?:${SP}${CAP}){0,2}))`,
    (g, add) => {
      if (g.proj) {
        const m = readGap(g.gap);
        if (!m.copula || m.negated) return;
        add(g.proj, 'belongs_to', g.org!, 0.85);
      } else add(g.proj2!, 'belongs_to', g.org2!, 0.8);
    },
  ),
];

/** Every relational fact of one sentence, subjects as written. */
export function relationalFacts(sentence: string): RawFact[] {
  const out: RawFact[] = [];
  for (const r of RULES) {
    if (!r.needs.test(sentence)) continue;
    for (const match of sentence.matchAll(r.re)) {
      const start = match.index;
      const end = start + match[0].length;
      const groups = match.groups ?? {};
      // "Dana and Sam work at Acme": the same statement about each of them.
      const subjects = groups.subj2 ? [groups.subj, groups.subj2] : [groups.subj];
      for (const subj of subjects) {
        r.emit({ ...groups, subj }, (subject, predicate, object, confidence) =>
          out.push({ subject, predicate, object: object.trim(), confidence, start, end }),
        );
      }
    }
  }
  return out;
}
