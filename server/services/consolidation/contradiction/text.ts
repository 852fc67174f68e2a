/** Text preparation for fact extraction: contractions expanded, sentences and clauses split. */

function expandContractions(s: string): string {
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

/** Split into sentences: on . ! ? followed by white space or the end, except after abbreviations and initials. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const block of expandContractions(text).split(/\n+/)) {
    let start = 0;
    for (const m of block.matchAll(/[.!?]+(?=\s|$)/g)) {
      const end = m.index + m[0].length;
      const chunk = block.slice(start, end);
      if (m[0] === '.' && ABBREVIATION.test(chunk)) continue;
      out.push(chunk);
      start = end;
    }
    out.push(block.slice(start));
  }
  return out.map((s) => s.trim()).filter(Boolean);
}

export function clauses(sentence: string): string[] {
  return sentence
    .split(/\s*;\s*|,?\s+(?:and|but|while|whereas|although|though)\s+/i)
    .map((c) => c.replace(/[.!]+$/, '').trim())
    .filter(Boolean);
}
