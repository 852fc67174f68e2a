import { porterStem } from '../../../server/services/retrieval/porter-stemmer.js';

/**
 * Turning user text into a safe FTS5 query. User text never reaches FTS5 syntax: it is split into
 * letter/digit runs (the same split the `unicode61` tokenizer makes), stop-words are dropped, and every
 * remaining term is emitted as a double-quoted string, so `"`, `*`, `-`, `(`, `NEAR`, `AND`, `OR`, `NOT`
 * and `:` in the input are inert.
 */

/** English stop-words plus question words: frequent, carry no topic, and make FTS5 scan most rows. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before being below between both but by ' +
    'can cannot could couldn did didn do does doesn doing don down during each few for from further had hadn has hasn have haven ' +
    'having he her here hers herself him himself his how i if in into is isn it its itself just let ll me more most mustn my myself ' +
    'no nor not now of off on once only or other ought our ours ourselves out over own re s same shan she should shouldn so some ' +
    'such t than that the their theirs them themselves then there these they this those through to too under until up ve very was ' +
    'wasn we were weren what when where which while who whom why will with won would wouldn you your yours yourself yourselves ' +
    'd m o y ain also get got getting gets go going goes went gone like really yeah yes ok okay oh hey hi hello wow lol thanks thank ' +
    'kind sort much many lot lots thing things something anything everything nothing ever even still yet already maybe perhaps ' +
    'tell know think say said says one ones way well back either neither whose whether'
  ).split(/\s+/),
);

/** Letter/digit runs, lower-cased, without diacritics. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * The content terms of a query: tokens that are not stop-words, de-duplicated, in order. When every
 * token is a stop-word (a query like "what is it"), the tokens themselves are used so that such a query
 * still finds something.
 */
export function queryTerms(text: string, maxTerms = 32): string[] {
  const tokens = tokenize(text);
  const content = tokens.filter((t) => !STOP_WORDS.has(t) && !(t.length === 1 && !/\p{N}/u.test(t)));
  const chosen = content.length > 0 ? content : tokens;
  return [...new Set(chosen)].slice(0, maxTerms);
}

/** The query's terms (`queryTerms`) as the keyword index holds them: through the FTS5 Porter stemmer. */
export function queryStems(text: string, maxTerms = 32): string[] {
  return queryTerms(text, maxTerms).map(porterStem);
}

/** Quotes one term as an FTS5 string (doubling any embedded quote, although tokens contain none). */
export function ftsString(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** `"t1" OR "t2" OR ...` over the content columns of a tenant's FTS table, or null when the text has no terms. */
export function buildFtsQuery(text: string): string | null {
  const terms = queryTerms(text);
  if (terms.length === 0) return null;
  return terms.map(ftsString).join(' OR ');
}
