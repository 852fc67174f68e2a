import { l2Normalize } from '../../server/ports/embedder.js';
import { queryTerms, tokenize, STOP_WORDS } from '../../server/text/query-text.js';
import { porterStem } from '../../server/text/porter-stemmer.js';
import { fnv1a } from './hashing.js';

/**
 * Hashed lexical features: the keyword half of the lexical-augmented embedding (`lexical-augmented.ts`).
 *
 * Terms are the keyword index's own: the same tokenizer (NFKD, no diacritics, lower case, letter/digit
 * runs), the same stop-words, and the FTS5 Porter stem, so "visited" in a question meets "visiting" in a
 * memory exactly as it does in BM25. Each distinct stem adds `1 + ln tf` (sublinear: a word said three
 * times is not three times the topic) at the bucket `fnv1a(stem) mod dimension`, with a sign from the
 * hash's top bit (signed feature hashing: two stems sharing a bucket cancel in expectation instead of
 * inflating each other), and the vector is L2-normalised, so the dot product of two such vectors is the
 * cosine of their stem-frequency vectors.
 *
 * Every stem weighs the same. An embedding sees one text, never the collection, so it has no IDF; a
 * static prior (the surprisal of a word under USE-lite's own SentencePiece unigram model) was measured
 * as a substitute and did no better on the LoCoMo dev split than equal weights: what IDF removes there
 * is mostly the tenant's own frequent words (the speakers' names), which a general-English prior calls
 * rare. Equal weights are the simpler choice.
 */

/** A token that carries content: not a stop-word, and not a lone letter (a lone digit stays). */
function isContent(token: string): boolean {
  return !STOP_WORDS.has(token) && !(token.length === 1 && !/\p{N}/u.test(token));
}

/** Stem -> term frequency, in first-seen order. */
export function lexicalTerms(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const token of tokenize(text)) {
    if (!isContent(token)) continue;
    const stem = porterStem(token);
    out.set(stem, (out.get(stem) ?? 0) + 1);
  }
  // A text of stop-words only ("what is it") keeps its tokens, as the keyword channel's query does.
  if (out.size === 0) for (const token of queryTerms(text)) out.set(porterStem(token), 1);
  return out;
}

/** Writes the unit-length hashed vector of `text` into `out` (all zeros when the text has no token). */
export function lexicalVectorInto(text: string, out: Float32Array): Float32Array {
  out.fill(0);
  for (const [stem, tf] of lexicalTerms(text)) {
    const h = fnv1a(stem);
    const bucket = h % out.length;
    const value = 1 + Math.log(tf);
    out[bucket] = out[bucket]! + (h >>> 31 === 0 ? value : -value);
  }
  return l2Normalize(out);
}

export function lexicalVector(text: string, dimension: number): Float32Array {
  return lexicalVectorInto(text, new Float32Array(dimension));
}
