import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js';
import { parse as parseDomain } from 'tldts';
import { ORG, PERSON, type FactPredicate, type RawFact } from './fact-vocabulary.js';

/**
 * Contact details stated in one sentence: e-mail addresses, phone numbers (validated with
 * libphonenumber-js) and websites (a URL or a bare domain with a real public suffix, per tldts), each
 * attributed to whom the sentence says it belongs:
 *   0.9  "Dana's email is ...", "Acme's website is acme.io", "my number is ..."
 *   0.85 "reach Dana at ...", "Dana (dana@acme.io)", "Acme (acme.io)"
 *   0.8  "Acme is at acme.io", "visit Acme at acme.io"
 *   0.6  the only name of the sentence, for an e-mail or phone; 0.5 for a website
 * A value nobody is named for is not a fact and is dropped. Pure: no I/O.
 */

export interface ContactOptions {
  /** Region for phone numbers written without a country code. */
  defaultRegion?: CountryCode;
}

const SP = String.raw`[ \t]+`;
const EMAIL =
  /(?<![\w.+%-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9])?@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b/g;
const URL_OR_DOMAIN =
  /(?<![\w@.-])(?:https?:\/\/[^\s<>"'()]{1,200}|(?:www\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,4}[a-z]{2,24}(?:\/[^\s<>"'()]{0,200})?)/gi;
/** Public suffixes that are more often file extensions in chat ("notes.md", "main.py"). */
const FILE_LIKE = new Set(['py', 'md', 'sh', 'rs', 'pl', 'rb', 'zip', 'mov', 'cs', 'so', 'gz', 'js', 'ts', 'json']);

const CONTACT_WORD: Record<'email' | 'phone' | 'website', string> = {
  email: String.raw`(?:work${SP}|personal${SP}|new${SP})?(?:e-?mail|mail)(?:${SP}address)?|address`,
  phone: String.raw`(?:work${SP}|personal${SP}|new${SP}|mobile${SP}|cell${SP})?(?:phone(?:${SP}number)?|number|mobile|cell|tel|telephone|whatsapp)`,
  website: String.raw`(?:official${SP})?(?:web[ \t]*site|site|homepage|home${SP}page|url|domain|web${SP}address)`,
};
const REACH_VERB: Record<'email' | 'phone' | 'website', string> = {
  email: String.raw`reach${SP}out${SP}to|reach|contact|email|e-mail|mail|write${SP}to|ping`,
  phone: String.raw`reach|contact|call|text|ring|phone|message`,
  website: String.raw`visit|check${SP}out|find`,
};

interface Attribution {
  subject: string;
  confidence: number;
}

/** "reach|call" → "reach|Reach|call|Call": names are told apart by case, so the patterns cannot ignore it. */
function bothCases(alternatives: string): string {
  return alternatives
    .split('|')
    .flatMap((a) => [a, a.charAt(0).toUpperCase() + a.slice(1)])
    .join('|');
}

const prefixRules = new Map<string, [RegExp, number][]>();
function rulesFor(kind: 'email' | 'phone' | 'website'): [RegExp, number][] {
  let rules = prefixRules.get(kind);
  if (!rules) {
    const who = kind === 'website' ? String.raw`${ORG}|${PERSON}` : PERSON;
    rules = [
      [
        new RegExp(String.raw`(?<subj>${who}|[Mm]y|[Hh]is|[Hh]er)(?:['’]s?)?${SP}${CONTACT_WORD[kind]}(?:${SP}is|${SP}-|:)?[ \t]*$`, 'u'),
        0.9,
      ],
      [new RegExp(String.raw`(?:${bothCases(REACH_VERB[kind])})${SP}(?<subj>${who}|me|him|her)${SP}(?:at|on|via)[ \t]*$`, 'u'), 0.85],
      [new RegExp(String.raw`(?<subj>${who})[ \t]*[(<][ \t]*$`, 'u'), 0.85],
      [
        new RegExp(
          String.raw`(?<subj>${who}|I)${SP}(?:can${SP}be${SP}reached|is${SP}reachable|is|am|lives|is${SP}online)${SP}(?:at|on|via)[ \t]*$`,
          'u',
        ),
        0.8,
      ],
      [new RegExp(String.raw`(?<subj>${who}),${SP}at[ \t]*$`, 'u'), 0.8],
    ];
    prefixRules.set(kind, rules);
  }
  return rules;
}

/** Who the value at [start, ...) belongs to, read from the words right before it. */
function attribute(sentence: string, start: number, kind: 'email' | 'phone' | 'website', names: () => string[]): Attribution | null {
  const before = sentence.slice(Math.max(0, start - 120), start);
  for (const [re, confidence] of rulesFor(kind)) {
    const m = re.exec(before);
    if (m?.groups?.subj) return { subject: m.groups.subj, confidence };
  }
  const named = names();
  if (named.length === 1) return { subject: named[0]!, confidence: kind === 'website' ? 0.5 : 0.6 };
  return null;
}

function trimUrl(raw: string): string {
  return raw.replace(/[.,;:!?]+$/, '');
}

/** A bare mention is a website only when tldts knows its public suffix and it is not an address or a file name. */
function isWebsite(raw: string): boolean {
  const parsed = parseDomain(raw, { allowPrivateDomains: true });
  if (!parsed.domain || parsed.isIp) return false;
  if (!parsed.isIcann && !parsed.isPrivate) return false;
  if (!/^https?:\/\//i.test(raw) && FILE_LIKE.has(parsed.publicSuffix ?? '')) return false;
  return true;
}

/**
 * libphonenumber's finder is most of this module's cost; it can only find a number where there are
 * digits and, without a default region, only one written internationally (with a plus sign).
 */
function mayHoldPhoneNumber(text: string, options: ContactOptions): boolean {
  return /\d/.test(text) && (options.defaultRegion !== undefined || /[+\uFF0B]/.test(text));
}

/**
 * Contact facts of one sentence; `names` gives the people and organisations the sentence names, for
 * the fallback only (a function: finding them needs a parse most sentences can do without).
 */
export function contactFacts(sentence: string, names: () => string[], options: ContactOptions = {}): RawFact[] {
  const out: RawFact[] = [];
  const taken: [number, number][] = [];
  const push = (predicate: FactPredicate, object: string, start: number, end: number, kind: 'email' | 'phone' | 'website') => {
    const who = attribute(sentence, start, kind, names);
    if (who) out.push({ subject: who.subject, predicate, object, confidence: who.confidence, start, end });
  };

  for (const m of sentence.matchAll(EMAIL)) {
    taken.push([m.index, m.index + m[0].length]);
    push('email', m[0].toLowerCase(), m.index, m.index + m[0].length, 'email');
  }
  for (const m of sentence.matchAll(URL_OR_DOMAIN)) {
    const url = trimUrl(m[0]);
    if (taken.some(([s, e]) => m.index < e && m.index + url.length > s) || !isWebsite(url)) continue;
    taken.push([m.index, m.index + url.length]);
    push('website', url, m.index, m.index + url.length, 'website');
  }
  // The finder skips digits inside e-mails and URLs only if we hide them; blank them out first.
  let digitsOnly = sentence;
  for (const [s, e] of taken) digitsOnly = digitsOnly.slice(0, s) + ' '.repeat(e - s) + digitsOnly.slice(e);
  const found = !mayHoldPhoneNumber(digitsOnly, options)
    ? []
    : options.defaultRegion
      ? findPhoneNumbersInText(digitsOnly, { defaultCountry: options.defaultRegion })
      : findPhoneNumbersInText(digitsOnly);
  for (const p of found.slice(0, 10)) push('phone', p.number.number, p.startsAt, p.endsAt, 'phone');
  return out;
}
