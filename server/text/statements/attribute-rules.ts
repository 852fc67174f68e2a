/** Which verb patterns and possessive forms state which attribute, and whether it holds one value at a time. */
import type { ValueKind } from './facts.js';
import type { Tagger } from '../pos-tagger.js';
import { EXCLUSIVE_GROUPS, normalizeValue } from './values.js';

/** Nouns after "is a" that name a relationship or a trait rather than an occupation. */
const NOT_OCCUPATION = new Set([
  'mother',
  'father',
  'parent',
  'mom',
  'mum',
  'dad',
  'sister',
  'brother',
  'son',
  'daughter',
  'child',
  'kid',
  'baby',
  'wife',
  'husband',
  'partner',
  'spouse',
  'friend',
  'boyfriend',
  'girlfriend',
  'fan',
  'member',
  'neighbour',
  'neighbor',
  'colleague',
  'person',
  'man',
  'woman',
  'guy',
  'girl',
  'boy',
  'adult',
  'citizen',
  'resident',
  'customer',
  'client',
  'user',
  'owner',
  'grandmother',
  'grandfather',
  'grandparent',
  'aunt',
  'uncle',
  'cousin',
  'niece',
  'nephew',
  'twin',
  'sibling',
  'vegan',
  'vegetarian',
  'pescatarian',
  'runner',
  'reader',
  'lover',
  'student',
  'beginner',
  'expert',
  'native',
  'local',
  'veteran',
  'volunteer',
  'patient',
  'guest',
  'visitor',
  'tourist',
  'subscriber',
  'supporter',
  'smoker',
  'drinker',
  'speaker',
  'learner',
]);
const OCCUPATION_SUFFIX =
  /(?:er|or|ist|ian|ant|ent|eer|ect|ef|ot|yst|ic|ive|ary|man|woman|person|nurse|doctor|chef|judge|pilot|clerk|nanny|coach|dentist|surgeon|barista|model|poet|actor|actress|director|manager)$/;

function isOccupation(value: string, tag: Tagger): boolean {
  const head = value.split(' ').at(-1) ?? '';
  if (!head || NOT_OCCUPATION.has(head)) return false;
  const tags = tag(head).flatMap((t) => t.tags);
  return tags.includes('Actor') || (tags.includes('Noun') && OCCUPATION_SUFFIX.test(head));
}

export type TenseMode = 'present' | 'past' | 'change';

export interface AttributeRule {
  /** The attribute(s) asserted; several for "left X" (employer and residence). */
  attributes: readonly string[];
  pattern: RegExp;
  single: boolean;
  kind: ValueKind;
  tense: TenseMode;
  /** The verb itself negates (left, quit, divorced). */
  negates?: boolean;
  /** Decide the attribute from the value (for "is a …" and "is …"); null drops the fact. */
  classify?: (value: string, tag: Tagger) => { attribute: string; single: boolean } | null;
}

const COPULA = String.raw`(?:is|am|are|became|has become|have become|remains|remain)`;
const NEG = String.raw`(?<neg>not\s+|no\s+longer\s+|never\s+)?`;

function classifyState(value: string, tag: Tagger): { attribute: string; single: boolean } | null {
  const v = normalizeValue(value, 'text');
  if (!v || /^(?:a|an|the|in|at|on|to|from|with|by|for|of|going|being|living|working|moving)\b/.test(v)) return null;
  for (const [attribute, group] of Object.entries(EXCLUSIVE_GROUPS)) if (group.values.includes(v)) return { attribute, single: true };
  // A state is an adjective or a participle ("tired", "retired"), not the start of a verb phrase or an
  // idiom: "I'm not gonna give up" is no state "gonna give up", and "I'm up for it" no state "up"
  // (the two contradicted each other, since one value contains the other).
  const first = tag(v).find((t) => !t.tags.includes('Adverb'));
  if (
    first &&
    (first.tags.includes('Preposition') ||
      first.tags.includes('Pronoun') ||
      (first.tags.includes('Verb') && !first.tags.includes('PastTense')))
  ) {
    return null;
  }
  return { attribute: 'state', single: false };
}

function classifyIsA(value: string, tag: Tagger): { attribute: string; single: boolean } | null {
  const v = normalizeValue(value, 'text');
  if (!v) return null;
  for (const [attribute, group] of Object.entries(EXCLUSIVE_GROUPS)) if (group.values.includes(v)) return { attribute, single: true };
  return isOccupation(v, tag) ? { attribute: 'role', single: true } : { attribute: 'is-a', single: false };
}

export const ATTRIBUTE_RULES: readonly AttributeRule[] = [
  // residence
  {
    attributes: ['residence'],
    pattern: /\b(?:lives|live|living|resides|reside|residing|stays|stay|staying)\s+(?:now\s+|currently\s+)?in\s+(?<value>.+)/i,
    single: true,
    kind: 'place',
    tense: 'present',
  },
  { attributes: ['residence'], pattern: /\b(?:lived|resided)\s+in\s+(?<value>.+)/i, single: true, kind: 'place', tense: 'past' },
  {
    attributes: ['residence'],
    pattern:
      /\b(?:moved|moves|move|moving|relocated|relocates|relocate|relocating|emigrated|emigrating)\s+(?:back\s+)?(?:from\s+\S+(?:\s+\S+){0,3}?\s+)?to\s+(?<value>.+)/i,
    single: true,
    kind: 'place',
    tense: 'change',
  },
  {
    attributes: ['residence'],
    pattern: /\b(?:(?<based>based|located)\s+(?:in|out\s+of)|settled\s+in)\s+(?<value>.+)/i,
    single: true,
    kind: 'place',
    tense: 'present',
  },
  {
    attributes: ['residence'],
    pattern: /\bmoved\s+(?:out\s+of|away\s+from)\s+(?<value>.+)/i,
    single: true,
    kind: 'place',
    tense: 'change',
    negates: true,
  },
  // employer
  {
    attributes: ['employer'],
    // "started working at" joins and "stopped working at" leaves: their rules below read them.
    pattern:
      /\b(?<!\b(?:started|starts|start|starting|stopped)\s+)(?:works|work|working)\s+(?:full[- ]time\s+|part[- ]time\s+|remotely\s+)?(?:at|for)\s+(?<value>.+)/i,
    single: true,
    kind: 'org',
    tense: 'present',
  },
  { attributes: ['employer'], pattern: /\bworked\s+(?:at|for)\s+(?<value>.+)/i, single: true, kind: 'org', tense: 'past' },
  {
    attributes: ['employer'],
    pattern:
      /\b(?:joined|joins|(?<!\bto\s+)(?:join|joining)|rejoined|(?:was\s+|got\s+|has\s+been\s+)?hired\s+(?:by|at)|(?<employed>employed)\s+(?:by|at)|(?:started|starts|start|starting)\s+(?:working\s+(?:at|for)|(?:a\s+(?:new\s+)?job\s+)?at)|(?:got|took)\s+a\s+(?:new\s+)?job\s+(?:at|with)|accepted\s+an\s+offer\s+from|moved\s+over\s+to|signed\s+with)\s+(?<value>.+)/i,
    single: true,
    kind: 'org',
    tense: 'change',
  },
  {
    attributes: ['employer'],
    pattern:
      /\b(?:quit|resigned\s+(?:from|at)|departed|(?:was\s+|got\s+)?(?:fired|laid\s+off|let\s+go)\s+(?:from|by)|stopped\s+working\s+(?:at|for)|retired\s+from|stepped\s+down\s+(?:from|as\s+(?:the\s+|an?\s+)?\S+(?:\s+\S+){0,4}?\s+(?:of|at)))\s+(?<value>.+)/i,
    single: true,
    kind: 'org',
    tense: 'change',
    negates: true,
  },
  { attributes: ['employer', 'residence'], pattern: /\bleft\s+(?<value>.+)/i, single: true, kind: 'org', tense: 'change', negates: true },
  // role
  {
    attributes: ['role'],
    pattern: /\b(?:works|work|working|employed|hired)\s+as\s+(?:an?\s+)?(?<value>.+)/i,
    single: true,
    kind: 'text',
    tense: 'present',
  },
  { attributes: ['role'], pattern: /\bworked\s+as\s+(?:an?\s+)?(?<value>.+)/i, single: true, kind: 'text', tense: 'past' },
  {
    attributes: ['role'],
    pattern: /\b(?:was\s+|got\s+)?promoted\s+to\s+(?:an?\s+)?(?<value>.+)/i,
    single: true,
    kind: 'text',
    tense: 'change',
  },
  // spouse
  { attributes: ['spouse'], pattern: /\b(?:married|engaged)\s+to\s+(?<value>.+)/i, single: true, kind: 'person', tense: 'present' },
  { attributes: ['spouse'], pattern: /\bmarried\s+(?!to\b)(?<value>\p{Lu}.*)/u, single: true, kind: 'person', tense: 'change' },
  {
    attributes: ['spouse'],
    pattern: new RegExp(
      String.raw`\b${COPULA}\s+${NEG}(?<value>\p{Lu}[\p{L}-]*(?:\s+\p{Lu}[\p{L}-]*)*)'s\s+(?:wife|husband|spouse)\b`,
      'u',
    ),
    single: true,
    kind: 'person',
    tense: 'present',
  },
  {
    attributes: ['spouse'],
    pattern: /\b(?:divorced|separated)\s+(?:from\s+)?(?<value>\p{Lu}.*)/u,
    single: true,
    kind: 'person',
    tense: 'change',
    negates: true,
  },
  // age, birth
  {
    attributes: ['age'],
    pattern: new RegExp(
      String.raw`\b${COPULA}\s+${NEG}(?:an?\s+)?(?<value>\d{1,3})(?=\s*(?:[- ]?years?|[- ]?yrs?|y\/?o)?(?:[- ]old)?\s*(?:$|[,.;]))`,
      'i',
    ),
    single: true,
    kind: 'number',
    tense: 'present',
  },
  {
    attributes: ['age'],
    pattern: new RegExp(String.raw`\b${COPULA}\s+${NEG}(?:an?\s+)?(?<value>\d{1,3})[- ](?:years?|yrs?)[- ]old\b`, 'i'),
    single: true,
    kind: 'number',
    tense: 'present',
  },
  {
    attributes: ['age'],
    pattern: /\b(?:turned|turns|(?:is\s+)?aged)\s+(?<value>\d{1,3})\b/i,
    single: true,
    kind: 'number',
    tense: 'change',
  },
  { attributes: ['birth-year'], pattern: /\bborn\s+in\s+(?<value>\d{4})\b/i, single: true, kind: 'number', tense: 'change' },
  { attributes: ['birthplace'], pattern: /\bborn\s+in\s+(?<value>\p{Lu}.*)/u, single: true, kind: 'place', tense: 'change' },
  {
    attributes: ['origin'],
    pattern: /\b(?:is|am|are|comes?|came)\s+(?:originally\s+)?from\s+(?<value>.+)/i,
    single: true,
    kind: 'place',
    tense: 'present',
  },
  // is a <noun>, is <adjective>
  {
    attributes: ['is-a'],
    pattern: new RegExp(String.raw`\b${COPULA}\s+${NEG}(?:now\s+)?(?:an?\s+)(?<value>.+)`, 'i'),
    single: false,
    kind: 'text',
    tense: 'present',
    classify: classifyIsA,
  },
  {
    attributes: ['state'],
    pattern: new RegExp(String.raw`\b${COPULA}\s+${NEG}(?:now\s+|still\s+)?(?<value>\p{Ll}[\p{L}-]*(?:\s+\p{Ll}[\p{L}-]*){0,3})`, 'u'),
    single: false,
    kind: 'text',
    tense: 'present',
    classify: classifyState,
  },
];

/** Possessive attributes that hold one value at a time. */
export const SINGLE_POSSESSIVE =
  /^(?:(?:least\s+)?favorite\s+[\p{L} ]+|age|birthday|date of birth|spouse|role|employer|address|hometown|nationality|(?:first\s+|last\s+|middle\s+|full\s+|maiden\s+|nick)?name|surname|email(?:\s+address)?|phone(?:\s+number)?|blood\s+type|time\s*zone|manager|boss|native\s+language|residence|diet)$/u;
export const POSSESSIVE_ALIASES: Readonly<Record<string, string>> = {
  wife: 'spouse',
  husband: 'spouse',
  partner: 'spouse',
  spouse: 'spouse',
  job: 'role',
  occupation: 'role',
  profession: 'role',
  position: 'role',
  'job title': 'role',
  title: 'role',
  employer: 'employer',
  company: 'employer',
  workplace: 'employer',
  'home town': 'hometown',
  'email address': 'email',
  'e-mail': 'email',
  'phone number': 'phone',
  'mobile number': 'phone',
  'city of residence': 'residence',
  'current city': 'residence',
  'home city': 'residence',
  diet: 'diet',
};

export const POSSESSIVE = new RegExp(
  String.raw`^(?<owner>.*?(?:\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)|[\p{L}\p{N}]+(?:'s|s')))\s+(?<attr>[\p{Ll}][\p{Ll} -]{0,40}?)\s+(?:is|was|has\s+always\s+been|has\s+been|remains|is\s+now|are)\s+${NEG}(?<value>.+)$`,
  'u',
);
