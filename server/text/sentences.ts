/** Text preparation for the fact extractors: contractions expanded, sentences (with offsets) and clauses split. */

export function expandContractions(s: string): string {
  return s
    .replace(/[’‘`]/g, "'")
    .replace(/\bcan't\b/gi, 'can not')
    .replace(/\bwon't\b/gi, 'will not')
    .replace(/\b(\w+)n't\b/gi, '$1 not')
    .replace(/\bi'm\b/gi, 'I am')
    .replace(/\b(he|she|it|that|who|there|what)'s\b/gi, '$1 is')
    .replace(/\b(\w+)'re\b/gi, '$1 are')
    .replace(/\b(\w+)'ve\b/gi, '$1 have')
    .replace(/\b(\w+)'ll\b/gi, '$1 will')
    .replace(/\b(i|you|he|she|we|they)'d\b/gi, '$1 would');
}

/** Abbreviations whose trailing period does not end a sentence. */
const ABBREVIATION =
  /(?:^|[\s(])(?:mr|mrs|ms|dr|prof|sr|jr|st|mt|ft|vs|etc|inc|ltd|co|corp|dept|approx|e\.g|i\.e|no|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|\p{L})\.$/iu;

/** A sentence and where it starts in the text it was cut from. */
export interface SentenceSpan {
  start: number;
  text: string;
}

/**
 * Sentences with their offsets: a line break ends one, and so does . ! ? followed by white space or the
 * end, except after abbreviations and initials. Trimmed; empty ones dropped. The text is not rewritten,
 * so the offsets index the caller's text (the knowledge extractor's spans).
 */
export function sentenceSpans(text: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  const push = (from: number, to: number) => {
    const raw = text.slice(from, to);
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed) out.push({ start: from + lead, text: trimmed });
  };
  for (const line of text.matchAll(/[^\n]+/g)) {
    const block = line[0];
    let start = 0;
    for (const m of block.matchAll(/[.!?]+(?=\s|$)/g)) {
      const end = m.index + m[0].length;
      if (m[0] === '.' && ABBREVIATION.test(block.slice(start, end))) continue;
      push(line.index + start, line.index + end);
      start = end;
    }
    push(line.index + start, line.index + block.length);
  }
  return out;
}

/** Split into sentences, contractions expanded first (the contradiction detector's reading). */
export function sentences(text: string): string[] {
  return sentenceSpans(expandContractions(text)).map((s) => s.text);
}

const CLAUSE_BREAK = /\s*;\s*|,?\s+(?:and|but|while|whereas|although|though)\s+/gi;

/** Clauses of a sentence with their offsets in it: cut at ";" and at coordinating words; a final "." or "!" dropped. */
export function clauseSpans(sentence: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  const push = (from: number, to: number) => {
    const raw = sentence.slice(from, to).replace(/[.!]+$/, '');
    const text = raw.trim();
    if (text) out.push({ start: from + raw.length - raw.trimStart().length, text });
  };
  let from = 0;
  for (const m of sentence.matchAll(CLAUSE_BREAK)) {
    push(from, m.index);
    from = m.index + m[0].length;
  }
  push(from, sentence.length);
  return out;
}

export function clauses(sentence: string): string[] {
  return clauseSpans(sentence).map((c) => c.text);
}
