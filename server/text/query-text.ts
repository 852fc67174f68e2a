import { porterStem } from './porter-stemmer.js';

/**
 * The terms of a text as every keyword channel sees them: letter/digit runs (the same split SQLite's
 * `unicode61` tokenizer makes), stop-words dropped, stemmed as FTS5's `porter` tokenizer stems. Shared
 * by the embedded index, the Qdrant sparse vectors and the lexical embedding features, so all of them
 * agree on what a term is.
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
