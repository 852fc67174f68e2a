import type { ExtractedEntity } from '../ports/search-index.js';
import { foldName, normaliseName, withoutNameAffixes } from './fact-vocabulary.js';

/**
 * The names a text mentions, in the form knowledge objects are looked up by (`normaliseName`, the
 * identity key of a single-identity-field object): what consolidation reports so that objects named
 * in newly committed memories are re-enriched.
 *
 * Cheap and generous on purpose: one lookup of every key in an index costs little, a missed name
 * leaves an object stale. So the keys are every span of capitalised words (with the particles names
 * contain: "Bank of America", "Ana de Souza") — each sub-span too, since a sentence's first word or a
 * title before a name is capitalised as well ("Yesterday Dana Whitfield") — plus the names the entity
 * tagger found, which also catches names written in lower case ("met dana whitfield").
 */

/** Longest span, in words (particles included), taken as one name. */
export const MAX_NAME_WORDS = 6;
/** Most keys reported for one text: a long text full of capitalised words cannot make the batch's look-up unbounded. */
export const MAX_MENTIONS_PER_TEXT = 400;

/** Lower-case words that may sit inside a name, never at its ends. */
const PARTICLES = new Set(
  'of and & de del della di da do dos das du la le les van von der den ten ter bin al y am im sur upon on the'.split(' '),
);

/** A word, or one run of other non-space characters (punctuation). */
const TOKEN = /[\p{L}\p{M}\p{N}&'’-]+|[^\s\p{L}\p{M}\p{N}&'’-]+/gu;
/** Punctuation that ends a name; a full stop does not ("St. Louis", "Acme Inc."): a span across a sentence end only adds a key. */
const BREAK = /[,;:!?()[\]{}"“”/|<>]/;
const WORDLIKE = /[\p{L}\p{N}]/u;

const isNamey = (word: string) => /^[\p{Lu}\p{N}]/u.test(word) || /\p{Lu}/u.test(word);

/** The runs of capitalised words and inner particles, split at breaking punctuation and other lower-case words. */
function capitalisedRuns(text: string): string[][] {
  const runs: string[][] = [];
  let run: string[] = [];
  const end = () => {
    while (run.length > 0 && !isNamey(run[run.length - 1]!)) run.pop();
    if (run.length > 0) runs.push(run);
    run = [];
  };
  for (const token of text.match(TOKEN) ?? []) {
    if (!WORDLIKE.test(token) && token !== '&') {
      if (BREAK.test(token)) end();
      continue;
    }
    if (isNamey(token)) run.push(token);
    else if (run.length > 0 && PARTICLES.has(token)) run.push(token);
    else end();
  }
  end();
  return runs;
}

/**
 * The normalised names `text` mentions (at most `MAX_MENTIONS_PER_TEXT`, first found first), from its
 * capitalised spans and the names of `entities` extracted from it (dates left out).
 */
export function mentionedNames(text: string, entities: readonly ExtractedEntity[] = []): string[] {
  const keys = new Set<string>();
  const add = (key: string) => {
    if (keys.size < MAX_MENTIONS_PER_TEXT && key.length >= 2 && key.length <= 200) keys.add(key);
  };
  for (const e of entities) if (e.type !== 'date') add(normaliseName(e.name));
  for (const run of capitalisedRuns(text)) {
    // Each word folded once: a span's key is then its folded words joined, less the name's affixes (= normaliseName of the span).
    const folded = run.map(foldName);
    for (let i = 0; i < run.length; i++) {
      if (!isNamey(run[i]!)) continue;
      for (let j = i; j < Math.min(run.length, i + MAX_NAME_WORDS); j++) {
        if (isNamey(run[j]!))
          add(
            withoutNameAffixes(
              folded
                .slice(i, j + 1)
                .filter(Boolean)
                .join(' '),
            ),
          );
      }
    }
  }
  return [...keys];
}
