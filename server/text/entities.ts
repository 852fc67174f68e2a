import nlp from 'compromise';
import type { EntityType, ExtractedEntity } from '../ports/search-index.js';

/**
 * Offline entity extraction for the knowledge-graph retrieval channel: people, places, organisations,
 * things (noun phrases and their nouns) and absolute dates, with normalised keys so that the same
 * entity written differently ("Sarah's", "sarah") gets one key. Pure: no I/O, no state.
 *
 * Built on compromise's part-of-speech tags (one parse per text, a few milliseconds per sentence).
 */

export interface ExtractOptions {
  /** Most entities kept per text (default 16); people, places, organisations and dates go first. */
  max?: number;
}

const TYPE_PRIORITY: Record<EntityType, number> = { person: 0, organization: 1, place: 2, date: 3, thing: 4 };

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_ABBR: Record<string, string> = {
  jan: 'january',
  feb: 'february',
  mar: 'march',
  apr: 'april',
  jun: 'june',
  jul: 'july',
  aug: 'august',
  sep: 'september',
  sept: 'september',
  oct: 'october',
  nov: 'november',
  dec: 'december',
};

/** Nouns too generic to identify anything. */
const GENERIC_NOUNS = new Set([
  'thing',
  'things',
  'stuff',
  'time',
  'times',
  'lot',
  'lots',
  'way',
  'ways',
  'day',
  'days',
  'kind',
  'sort',
  'bit',
  'one',
  'ones',
  'people',
  'person',
  'someone',
  'something',
  'anything',
  'everything',
  'nothing',
  'everyone',
  'anyone',
  'part',
  'place',
  'year',
  'years',
  'week',
  'weeks',
  'month',
  'months',
  'moment',
  'today',
  'tomorrow',
  'yesterday',
  'tonight',
  'morning',
  'evening',
  'night',
  'idea',
  'point',
  'reason',
  'fact',
  'case',
  'guy',
  'guys',
  'hey',
  'hi',
  'hello',
  'thanks',
  'wow',
  'yeah',
  'yes',
  'no',
  'ok',
  'okay',
  'lol',
  'omg',
  'haha',
  'oh',
  'um',
  'uh',
  'mr',
  'mrs',
  'ms',
  'dr',
]);

interface Term {
  text: string;
  normal: string;
  tags: Set<string>;
  /** Punctuation or spacing after the term that breaks a phrase (comma, full stop, colon, dash). */
  breakAfter: boolean;
}

/** Lower case, no diacritics, no possessive, only letters/digits separated by single spaces. */
export function normalizeEntityKey(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/\s+/g, ' ');
}

/** A small English singulariser for the last word of a noun phrase (keys only; not for display). */
export function singularize(word: string): string {
  if (word.length <= 3) return word;
  if (/(ss|us|is|ous|ics)$/.test(word)) return word;
  if (/ies$/.test(word) && word.length > 4) return word.slice(0, -3) + 'y';
  if (/(ches|shes|xes|zes|sses)$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word)) return word.slice(0, -1);
  return word;
}

function thingKey(words: string[]): string {
  const w = [...words];
  w[w.length - 1] = singularize(w[w.length - 1]!);
  return w.join(' ');
}

function has(t: Term, tag: string): boolean {
  return t.tags.has(tag);
}

function parse(text: string): Term[][] {
  const doc = nlp(text);
  const sentences = doc.json({ terms: { normal: true, text: true, tags: true, whitespace: true } }) as {
    terms: { text: string; normal: string; tags: string[]; post?: string }[];
  }[];
  return sentences.map((s) =>
    s.terms.map((t) => ({
      text: t.text,
      normal: t.normal,
      tags: new Set(t.tags),
      breakAfter: /[,.;:!?()\-–—"]/.test(t.post ?? ''),
    })),
  );
}

/** Dates the parser may miss or split: ISO dates and "7 May 2023" / "May 7, 2023" / "May 2023". */
function regexDates(text: string): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  for (const m of lower.matchAll(/\b(\d{4})-(\d{2})-(\d{2})\b/g)) {
    const month = MONTHS[Number(m[2]) - 1];
    if (month) out.push(`${Number(m[3])} ${month} ${m[1]}`);
  }
  const monthRe =
    '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\\.?';
  for (const m of lower.matchAll(new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${monthRe},?\\s+(\\d{4})\\b`, 'g'))) {
    out.push(`${Number(m[1])} ${MONTH_ABBR[m[2]!] ?? m[2]} ${m[3]}`);
  }
  for (const m of lower.matchAll(new RegExp(`\\b${monthRe}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'g'))) {
    out.push(`${Number(m[2])} ${MONTH_ABBR[m[1]!] ?? m[1]} ${m[3]}`);
  }
  for (const m of lower.matchAll(new RegExp(`\\b${monthRe},?\\s+(\\d{4})\\b`, 'g'))) {
    out.push(`${MONTH_ABBR[m[1]!] ?? m[1]} ${m[2]}`);
  }
  return out;
}

/** Keeps a date phrase only when it names a month or a year (relative words carry no identity). */
function dateKey(words: string[]): string | null {
  const kept = words
    .map((w) => MONTH_ABBR[w] ?? w)
    .filter((w) => MONTHS.includes(w) || /^\d{1,4}(st|nd|rd|th)?$/.test(w))
    .map((w) => w.replace(/(st|nd|rd|th)$/, ''));
  if (kept.some((w) => MONTHS.includes(w))) return kept.join(' ');
  // Without a month name only a lone year identifies anything ("in 2022"); "2023 05 08" is left to regexDates.
  if (kept.length === 1 && /^(1[5-9]|20)\d\d$/.test(kept[0]!)) return kept[0]!;
  return null;
}

export function extractEntities(text: string, options: ExtractOptions = {}): ExtractedEntity[] {
  const max = options.max ?? 16;
  const found = new Map<string, ExtractedEntity & { order: number }>();
  let order = 0;
  const add = (type: EntityType, name: string, key: string) => {
    if (!key || key.length < 2 || key.length > 80) return;
    if (/^\d+$/.test(key) && type !== 'date') return;
    const id = key;
    if (!found.has(id)) found.set(id, { key, name: name.trim(), type, order: order++ });
  };

  // A chat-log speaker prefix ("Alice: ...") names a person even where the tagger does not see one.
  const speaker = /^\s*([\p{Lu}][\p{L}'’-]{1,30}(?: [\p{Lu}][\p{L}'’-]{1,30})?):\s/u.exec(text);
  if (speaker) add('person', speaker[1]!, normalizeEntityKey(speaker[1]!));

  for (const terms of parse(text)) {
    let i = 0;
    while (i < terms.length) {
      const t = terms[i]!;
      const kind: EntityType | null =
        has(t, 'Person') && !has(t, 'Pronoun')
          ? 'person'
          : has(t, 'Organization')
            ? 'organization'
            : has(t, 'Place')
              ? 'place'
              : has(t, 'Date') || has(t, 'Year')
                ? 'date'
                : null;
      if (kind) {
        const run: Term[] = [t];
        let j = i + 1;
        while (j < terms.length && !run[run.length - 1]!.breakAfter) {
          const n = terms[j]!;
          const same =
            kind === 'person'
              ? has(n, 'Person') && !has(n, 'Pronoun')
              : kind === 'organization'
                ? has(n, 'Organization')
                : kind === 'place'
                  ? has(n, 'Place')
                  : has(n, 'Date') || has(n, 'Value') || n.normal === 'of';
          if (!same) break;
          run.push(n);
          j++;
        }
        const words = normalizeEntityKey(run.map((r) => r.normal).join(' '))
          .split(' ')
          .filter(Boolean);
        const name = run.map((r) => r.text).join(' ');
        if (kind === 'date') {
          const key = dateKey(words);
          if (key) add('date', name, key);
        } else if (words.length && !words.every((w) => GENERIC_NOUNS.has(w))) {
          add(kind, name, words.join(' '));
        }
        i = j;
        continue;
      }
      // Other proper nouns and acronyms ("LGBTQ", "Eiffel Tower" when untyped) and common-noun phrases.
      const isNoun = (n: Term) =>
        (has(n, 'Noun') || has(n, 'Acronym')) &&
        !has(n, 'Pronoun') &&
        !has(n, 'Date') &&
        !has(n, 'Value') &&
        !has(n, 'Possessive') &&
        !has(n, 'Expression');
      if (isNoun(t)) {
        const run: Term[] = [t];
        let j = i + 1;
        while (j < terms.length && !run[run.length - 1]!.breakAfter && isNoun(terms[j]!) && run.length < 4) {
          run.push(terms[j]!);
          j++;
        }
        const words = normalizeEntityKey(run.map((r) => r.normal).join(' '))
          .split(' ')
          .filter((w) => w.length > 1);
        const content = words.filter((w) => !GENERIC_NOUNS.has(w));
        if (content.length) {
          if (words.length > 1 && content.length === words.length) add('thing', run.map((r) => r.text).join(' '), thingKey(words));
          for (const w of content) {
            if (/^\d/.test(w)) continue;
            add('thing', w, singularize(w));
          }
        }
        i = j;
        continue;
      }
      i++;
    }
  }
  for (const d of regexDates(text)) add('date', d, d);

  return [...found.values()]
    .sort((a, b) => TYPE_PRIORITY[a.type] - TYPE_PRIORITY[b.type] || a.order - b.order)
    .slice(0, max)
    .map(({ key, name, type }) => ({ key, name, type }));
}
