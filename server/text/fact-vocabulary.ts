/**
 * The shared vocabulary of fact extraction (`facts.ts`): the fact shape, the name patterns every rule
 * builds on, and name normalisation for matching. Pure: no I/O, no state.
 */
import { stripMarks, withoutLegalSuffix } from './names.js';

export const FACT_PREDICATES = [
  'works_at',
  'worked_at',
  'joined',
  'left',
  'job_title',
  'headquartered_in',
  'based_in',
  'lives_in',
  'reports_to',
  'manager_of',
  'owns',
  'leads',
  'status',
  'belongs_to',
  'email',
  'phone',
  'website',
] as const;
export type FactPredicate = (typeof FACT_PREDICATES)[number];

/** One stated fact; `span` is [start, end) in the input text. */
export interface Fact {
  subject: string;
  predicate: FactPredicate;
  object: string;
  confidence: number;
  span: [number, number];
}

/** A fact found in one sentence, before subject resolution; offsets relative to the sentence. */
export interface RawFact {
  /** The subject as written ("Dana", "I", "She", "my"); resolved by the caller. */
  subject: string;
  predicate: FactPredicate;
  object: string;
  confidence: number;
  start: number;
  end: number;
}

/** Titles written as acronyms; never part of an organisation's or a person's name ("Acme CTO Dana"). */
export const ACRONYM_TITLES = 'CEO|CTO|CFO|COO|CPO|CMO|CIO|CISO|CRO|CSO|VP|SVP|EVP|GM|PM|EM|TPM|SRE|QA';

/** One capitalised word: "Dana", "O'Brien", "Jean-Luc", "AT&T", "eBay", "3M" — never a possessive "'s". */
const WORD = String.raw`(?:[\p{Lu}\p{N}]|[a-z](?=\p{Lu}))[\p{L}\p{M}\p{N}&]*(?:(?:-(?=[\p{Lu}\p{N}])|['’](?!(?:s|m|re|ve|d|ll|t)\b)(?=\p{L}))[\p{L}\p{M}\p{N}&]+)*`;
export const CAP = String.raw`(?!(?:${ACRONYM_TITLES})\b)${WORD}`;

const SP = String.raw`[ \t]+`;
const LEGAL = String.raw`(?:,?${SP}(?:Inc|Ltd|LLC|GmbH|AG|SA|SAS|plc|PLC|Corp|Co|BV|NV|AB|Pty)\.?(?![\p{L}]))?`;

/** A person's name: capitalised words with the usual particles ("Ana de Souza", "Ludwig van Beethoven"). */
export const PERSON = String.raw`${CAP}(?:${SP}(?:(?:van|von|de|da|del|della|di|du|le|la|bin|al|der|den|ten|ter|dos|das)${SP})?${CAP}){0,4}`;
/** An organisation's name: capitalised words joined by "of", "&" ("Bank of America", "Procter & Gamble"); not "for" ("left Acme for Globex"). */
export const ORG = String.raw`${CAP}(?:${SP}(?:(?:of|&|de|du|la|le|von|van)${SP})?${CAP}){0,5}${LEGAL}`;
/** A place: capitalised words with the particles of place names ("Rio de Janeiro", "Frankfurt am Main"). */
export const PLACE = String.raw`${CAP}(?:${SP}(?:(?:de|del|do|da|dos|la|le|les|sur|upon|on|am|an|im|of)${SP})?${CAP}){0,4}`;

/** Words people put before a name that are not part of it ("Yesterday Dana joined ..."). */
const LEADING_NOISE = new Set(
  (
    'yesterday today tonight tomorrow apparently also so and but btw fyi now recently then update note oh ' +
    'well actually anyway last this since after before when because hey hi hello good great news fun fact ok ' +
    'okay yes no the a an in on at as if just finally meanwhile sadly luckily honestly basically reminder ' +
    'dr mr mrs ms prof sir dear monday tuesday wednesday thursday friday saturday sunday january february ' +
    'march april may june july august september october november december earlier later currently officially ' +
    'interesting surprise quick heads up remember fun wow turns out seems we they it you our their there this ' +
    'that these those contact visit call email ask tell ping see met meet with thanks thank congrats per'
  ).split(' '),
);

/** Strips leading words that are not part of a name; returns '' when nothing of a name is left. */
export function trimName(raw: string): string {
  const words = raw
    .trim()
    .replace(/\.$/, '')
    .split(/[ \t]+/);
  while (words.length > 0 && (LEADING_NOISE.has(words[0]!.toLowerCase().replace(/[.,]$/, '')) || /^\d+$/.test(words[0]!))) {
    words.shift();
  }
  return words.join(' ');
}

const HONORIFICS = /^(?:dr|mr|mrs|ms|mx|prof|sir|dame)\.?\s+/;

/**
 * The form of a name used for matching: lower case, no diacritics, no possessive, no honorific, no
 * leading "the", no legal suffix ("Acme, Inc." = "acme"), "&" read as "and", single spaces.
 */
export function normaliseName(name: string): string {
  return withoutNameAffixes(foldName(name));
}

/**
 * `normaliseName`'s first step, word by word (so the words of a text can be folded once and joined):
 * lower case, no diacritics, no possessive or apostrophe, "&" read as "and", single spaces.
 */
export function foldName(name: string): string {
  return stripMarks(name)
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/['’]/g, '')
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/\s+/g, ' ');
}

/** `normaliseName`'s second step, on a folded name: no honorific, no leading "the", no legal suffix. */
export function withoutNameAffixes(folded: string): string {
  const s = folded.replace(HONORIFICS, '').replace(/^the\s+/, '');
  const stripped = withoutLegalSuffix(s);
  return stripped.length > 0 ? stripped : s;
}
