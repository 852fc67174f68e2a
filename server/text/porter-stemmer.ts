/**
 * The Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it, so that a keyword index
 * built outside SQLite (the Qdrant sparse vectors of the server profile) stems every token to the
 * same term the embedded profile's FTS5 index holds. Pure; no state.
 *
 * FTS5 specifics mirrored here (they differ in small ways from other Porter implementations):
 * - tokens shorter than 3 or longer than 64 *bytes* (UTF-8) pass through unchanged;
 * - the algorithm runs over UTF-8 bytes, every non-ASCII byte counting as a consonant;
 * - "y" is a vowel after a consonant for the measure m and for *o, but anywhere except at the start
 *   for *v* (the "contains a vowel" condition);
 * - step 2 uses the revised suffix list (`bli`→`ble`, `logi`→`log`);
 * - within a step the first suffix that matches decides, even when its condition then fails.
 *
 * `test/unit/qdrant-sparse.test.ts` checks this against libsql's FTS5 on a large word list.
 */

const MIN_BYTES = 3;
const MAX_BYTES = 64;

function isVowel(c: string, yIsVowel: boolean): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y');
}

/**
 * Skips one vowel run then one consonant: returns the index just after that consonant, or 0 when the
 * stem `w[from, to)` has no vowel followed by a consonant. `prevCons` says whether the character
 * before `from` was a consonant (it decides whether a leading "y" is a vowel).
 */
function gobbleVC(w: string, from: number, to: number, prevCons: boolean): number {
  let cons = prevCons;
  let i = from;
  for (; i < to; i++) {
    cons = !isVowel(w[i]!, cons);
    if (!cons) break;
  }
  for (i++; i < to; i++) {
    cons = !isVowel(w[i]!, cons);
    if (cons) return i + 1;
  }
  return 0;
}

/** m > 0 for the stem w[0, n). */
function mGt0(w: string, n: number): boolean {
  return gobbleVC(w, 0, n, false) !== 0;
}

/** m > 1. */
function mGt1(w: string, n: number): boolean {
  const k = gobbleVC(w, 0, n, false);
  return k !== 0 && gobbleVC(w, k, n, true) !== 0;
}

/** m = 1. */
function mEq1(w: string, n: number): boolean {
  const k = gobbleVC(w, 0, n, false);
  return k !== 0 && gobbleVC(w, k, n, true) === 0;
}

/** *o: the stem ends consonant-vowel-consonant and the last consonant is not w, x or y. */
function oStar(w: string, n: number): boolean {
  const last = w[n - 1];
  if (last === 'w' || last === 'x' || last === 'y') return false;
  let mask = 0;
  let cons = false;
  for (let i = 0; i < n; i++) {
    cons = !isVowel(w[i]!, cons);
    mask = ((mask << 1) | (cons ? 1 : 0)) & 0x7;
  }
  return mask === 0x5;
}

/** *v*: the stem contains a vowel ("y" counts except as the first letter). */
function hasVowel(w: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(w[i]!, i > 0)) return true;
  return false;
}

type Condition = (w: string, n: number) => boolean;

/** [suffix, replacement, condition on the stem before the suffix]; first match decides. */
type Rule = readonly [string, string, Condition];

const mGt1SorT: Condition = (w, n) => (w[n - 1] === 's' || w[n - 1] === 't') && mGt1(w, n);

const STEP2: readonly Rule[] = [
  ['ational', 'ate', mGt0],
  ['tional', 'tion', mGt0],
  ['enci', 'ence', mGt0],
  ['anci', 'ance', mGt0],
  ['izer', 'ize', mGt0],
  ['logi', 'log', mGt0],
  ['bli', 'ble', mGt0],
  ['alli', 'al', mGt0],
  ['entli', 'ent', mGt0],
  ['eli', 'e', mGt0],
  ['ousli', 'ous', mGt0],
  ['ization', 'ize', mGt0],
  ['ation', 'ate', mGt0],
  ['ator', 'ate', mGt0],
  ['alism', 'al', mGt0],
  ['iveness', 'ive', mGt0],
  ['fulness', 'ful', mGt0],
  ['ousness', 'ous', mGt0],
  ['aliti', 'al', mGt0],
  ['iviti', 'ive', mGt0],
  ['biliti', 'ble', mGt0],
];

const STEP3: readonly Rule[] = [
  ['icate', 'ic', mGt0],
  ['ative', '', mGt0],
  ['alize', 'al', mGt0],
  ['iciti', 'ic', mGt0],
  ['ical', 'ic', mGt0],
  ['ful', '', mGt0],
  ['ness', '', mGt0],
];

const STEP4: readonly Rule[] = [
  ['al', '', mGt1],
  ['ance', '', mGt1],
  ['ence', '', mGt1],
  ['er', '', mGt1],
  ['ic', '', mGt1],
  ['able', '', mGt1],
  ['ible', '', mGt1],
  ['ant', '', mGt1],
  ['ement', '', mGt1],
  ['ment', '', mGt1],
  ['ent', '', mGt1],
  ['ion', '', mGt1SorT],
  ['ou', '', mGt1],
  ['ism', '', mGt1],
  ['ate', '', mGt1],
  ['iti', '', mGt1],
  ['ous', '', mGt1],
  ['ive', '', mGt1],
  ['ize', '', mGt1],
];

/**
 * Applies the first rule whose suffix ends `w` with a non-empty stem before it. Suffixes that share
 * their last two letters are listed longest first, which is the order FTS5 tries them in.
 */
function applyRules(w: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const n = w.length - suffix.length;
      return condition(w, n) ? w.slice(0, n) + replacement : w;
    }
  }
  return w;
}

function step1a(w: string): string {
  const n = w.length;
  if (w[n - 1] !== 's') return w;
  if (w[n - 2] === 'e') {
    if ((n > 4 && w[n - 4] === 's' && w[n - 3] === 's') || (n > 3 && w[n - 3] === 'i')) return w.slice(0, n - 2);
    return w.slice(0, n - 1);
  }
  if (w[n - 2] !== 's') return w.slice(0, n - 1);
  return w;
}

/** Step 1b; `stripped` tells whether "ed"/"ing" was removed (then the 1b clean-up runs). */
function step1b(w: string): { w: string; stripped: boolean } {
  const n = w.length;
  if (n > 3 && w.endsWith('eed')) {
    return { w: mGt0(w, n - 3) ? w.slice(0, n - 1) : w, stripped: false };
  }
  if (n > 2 && w.endsWith('ed')) {
    return hasVowel(w, n - 2) ? { w: w.slice(0, n - 2), stripped: true } : { w, stripped: false };
  }
  if (n > 3 && w.endsWith('ing')) {
    return hasVowel(w, n - 3) ? { w: w.slice(0, n - 3), stripped: true } : { w, stripped: false };
  }
  return { w, stripped: false };
}

function step1bCleanup(w: string): string {
  const n = w.length;
  if (n > 2 && (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz'))) return w + 'e';
  const c = w[n - 1]!;
  if (!isVowel(c, false) && c !== 'l' && c !== 's' && c !== 'z' && n >= 2 && c === w[n - 2]) return w.slice(0, n - 1);
  if (mEq1(w, n) && oStar(w, n)) return w + 'e';
  return w;
}

/** Stems one byte string (one JS character per byte, as from `latin1`). */
function stemBytes(token: string): string {
  let w = step1a(token);
  const b = step1b(w);
  w = b.stripped ? step1bCleanup(b.w) : b.w;
  // Step 1c.
  if (w[w.length - 1] === 'y' && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + 'i';
  w = applyRules(w, STEP2);
  w = applyRules(w, STEP3);
  w = applyRules(w, STEP4);
  // Step 5a.
  const n = w.length;
  if (w[n - 1] === 'e' && (mGt1(w, n - 1) || (mEq1(w, n - 1) && !oStar(w, n - 1)))) w = w.slice(0, n - 1);
  // Step 5b.
  const m = w.length;
  if (m > 1 && w[m - 1] === 'l' && w[m - 2] === 'l' && mGt1(w, m - 1)) w = w.slice(0, m - 1);
  return w;
}

// eslint-disable-next-line no-control-regex -- ASCII starts at NUL
const ASCII = /^[\x00-\x7f]*$/;

/**
 * The FTS5 porter stem of one token (a lower-cased letter/digit run, as `tokenize` produces). Tokens
 * outside 3..64 UTF-8 bytes come back unchanged.
 */
export function porterStem(token: string): string {
  if (ASCII.test(token)) {
    if (token.length < MIN_BYTES || token.length > MAX_BYTES) return token;
    return stemBytes(token);
  }
  const bytes = Buffer.from(token, 'utf8');
  if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) return token;
  return Buffer.from(stemBytes(bytes.toString('latin1')), 'latin1').toString('utf8');
}
