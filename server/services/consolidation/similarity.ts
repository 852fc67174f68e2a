/**
 * Text normalisation and lexical similarity for consolidation (pure; no I/O, no state).
 *
 * Normalisation is the single definition of "the same text" used by exact-duplicate lookups
 * (`contentFingerprint`) and by near-duplicate scoring (`textSimilarity`):
 *   NFKC → strip invisible format characters → lowercase → strip diacritics → punctuation to
 *   spaces (apostrophes inside words are dropped, so "don't" ≡ "dont") → collapse whitespace.
 */
import { createHash } from 'node:crypto';

/** Zero-width, bidi control, BOM, soft hyphen and Unicode tag characters. */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

/**
 * The last texts normalised. Dedupe compares one write with up to a dozen candidates and each
 * comparison normalises both sides several times (exact check, tokens, similarity); a candidate is
 * often compared again by the next writes, and seven regex passes per call made this a visible share of
 * consolidation (figures: docs/performance.md#normalised-texts-remembered).
 */
const recentlyNormalized = new Map<string, string>();
const RECENT_MAX = 4_096;
/** Longer texts are not kept (bounds the memo per thread at ~70 MB of one-byte text, twice that of two-byte text). */
const RECENT_MAX_CHARS = 8_192;

/** Normalise text for comparison. Deterministic and locale-independent. */
export function normalizeText(text: string): string {
  let normalized = recentlyNormalized.get(text);
  if (normalized === undefined) {
    normalized = normalizeUncached(text);
    if (text.length <= RECENT_MAX_CHARS) {
      if (recentlyNormalized.size >= RECENT_MAX) recentlyNormalized.clear();
      recentlyNormalized.set(text, normalized);
    }
  }
  return normalized;
}

function normalizeUncached(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/(?<=\p{L})['’‘`](?=\p{L})/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Tokens of the normalised text (letters/digits runs). */
export function tokenize(text: string): string[] {
  const normalized = normalizeText(text);
  return normalized === '' ? [] : normalized.split(' ');
}

/** SHA-256 (hex) of the normalised text: equal for texts that differ only in case, spacing, punctuation. */
export function contentFingerprint(text: string): string {
  return createHash('sha256').update(normalizeText(text), 'utf8').digest('hex');
}

function counts(items: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const it of items) m.set(it, (m.get(it) ?? 0) + 1);
  return m;
}

/** Cosine similarity of two bags of items (term-frequency vectors); 1 when both are empty. */
export function cosineSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const ca = counts(a);
  const cb = counts(b);
  let dot = 0;
  for (const [k, v] of ca) dot += v * (cb.get(k) ?? 0);
  let na = 0;
  for (const v of ca.values()) na += v * v;
  let nb = 0;
  for (const v of cb.values()) nb += v * v;
  return dot / Math.sqrt(na * nb);
}

/** Jaccard similarity of two sets; 1 when both are empty. */
export function jaccardSimilarity<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Word shingles (contiguous k-grams) of a token list; a shorter list yields itself as one shingle. */
export function shingles(tokens: readonly string[], k: number): Set<string> {
  const out = new Set<string>();
  if (tokens.length === 0) return out;
  if (tokens.length < k) {
    out.add(tokens.join(' '));
    return out;
  }
  for (let i = 0; i + k <= tokens.length; i++) out.add(tokens.slice(i, i + k).join(' '));
  return out;
}

/** Function words ignored by `similarityTokens` (negations are deliberately absent). */
const STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'this',
  'that',
  'these',
  'those',
  'is',
  'am',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'of',
  'in',
  'on',
  'at',
  'to',
  'for',
  'with',
  'by',
  'from',
  'into',
  'about',
  'and',
  'or',
  'but',
  'as',
  'it',
  'its',
  'so',
  'then',
  'there',
  'here',
  'do',
  'does',
  'did',
  'has',
  'have',
  'had',
  'will',
  'would',
  'can',
  'could',
  'should',
  'shall',
  'may',
  'might',
  'must',
  'some',
  'any',
  'very',
  'really',
  'just',
  'also',
  'quite',
]);

/** Very light English suffix folding: a trailing plural/3rd-person "s" (not "ss", "us", "is"). */
function fold(token: string): string {
  return token.length >= 4 && /[^sui]s$/.test(token) ? token.slice(0, -1) : token;
}

/**
 * Tokens used for similarity: normalised tokens without function words, lightly folded
 * ("lives" ≡ "live"). Falls back to all tokens when every token is a function word.
 */
export function similarityTokens(text: string): string[] {
  const all = tokenize(text);
  const content = all.filter((t) => !STOPWORDS.has(t));
  return (content.length > 0 ? content : all).map(fold);
}

/**
 * Lexical similarity in [0, 1] of two texts, over `similarityTokens`: the mean of
 *  - cosine of unigram counts (robust to reordering and repeated words), and
 *  - Jaccard of word-bigram shingles (sensitive to a changed word: each change breaks two bigrams).
 * Identical normalised texts score exactly 1. Function words, case, punctuation and plural "s"
 * do not count; one substituted content word in a sentence of up to ~20 content words stays
 * below 0.9 (e.g. "Alice lives in Paris" vs "… Berlin" = 0.5).
 */
export function textSimilarity(a: string, b: string): number {
  if (normalizeText(a) === normalizeText(b)) return 1;
  const ta = similarityTokens(a);
  const tb = similarityTokens(b);
  const cos = cosineSimilarity(ta, tb);
  const jac = jaccardSimilarity(shingles(ta, 2), shingles(tb, 2));
  return (cos + jac) / 2;
}
