/** Part-of-speech tagging (compromise) for the fact extractors, memoised per extraction and, for short texts, per process. */
import nlp from 'compromise';

export interface TermJson {
  text: string;
  tags: string[];
}

/** Part-of-speech tagging by compromise. */
export type Tagger = (text: string) => TermJson[];

/**
 * Tagging is a pure function of the text and the expensive part of fact extraction, while the short
 * texts it is asked about (subject phrases, values, verbs) recur across memories: "Alice", "my sister".
 * Those share one process-wide memo, bounded so it cannot grow without limit (oldest entry out first).
 */
const SHARED_MEMO_MAX_CHARS = 64;
const SHARED_MEMO_ENTRIES = 20_000;
const sharedTerms = new Map<string, TermJson[]>();

function tagWithCompromise(text: string): TermJson[] {
  const json = nlp(text).terms().json() as Array<{ terms: Array<{ text: string; tags: string[] }> }>;
  return json.flatMap((t) => t.terms.map((x) => ({ text: x.text, tags: x.tags })));
}

export function rememberShared<V>(memo: Map<string, V>, key: string, value: V): void {
  if (memo.size >= SHARED_MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
  memo.set(key, value);
}

/** Tags of a text through the process-wide memo alone (short texts), for callers without an extraction of their own. */
export function tagShared(text: string): TermJson[] {
  let terms = text.length <= SHARED_MEMO_MAX_CHARS ? sharedTerms.get(text) : undefined;
  if (terms === undefined) {
    terms = tagWithCompromise(text);
    if (text.length <= SHARED_MEMO_MAX_CHARS) rememberShared(sharedTerms, text, terms);
  }
  return terms;
}

/** Whether compromise tags any word of a phrase `tag` ("Person", "Place", "Organization"), as `nlp(phrase).has('#' + tag)`. */
export function phraseHasTag(phrase: string, tag: string): boolean {
  return tagShared(phrase).some((t) => t.tags.includes(tag));
}

/** A tagger that memoises its answers for one extraction; short texts also go through the shared memo. */
export function createTagger(): Tagger {
  const memo = new Map<string, TermJson[]>();
  return (text) => {
    let terms = memo.get(text);
    if (terms === undefined) {
      terms = tagShared(text);
      memo.set(text, terms);
    }
    return terms;
  };
}
