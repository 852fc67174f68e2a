/**
 * The SentencePiece segmentation of `@energetic-ai/embeddings` (its `Tokenizer.encode`), rewritten to
 * run in time linear in the text: the library hands every position a copy of the rest of the text
 * (`symbols.slice(i)`), which is quadratic. Everything else is the library's rule, kept exactly so that
 * the ids are the same (the test compares them on thousands of texts):
 * - NFKC, then "▁" before the text and in place of every space;
 * - the pieces starting at each position from the library's own trie, or the unknown piece (id 0) for
 *   one symbol when none does;
 * - its Viterbi: candidates visited by end, then by start ascending; a candidate wins when the best
 *   score there is still exactly 0 (unset) or when it scores at least as much (`>=`: later wins ties);
 *   a piece whose score is null counts as 0;
 * - the backward walk steps by the winning piece's string length, and runs of unknown ids merge.
 */
export interface TrieNode {
  end: boolean;
  /** [symbols, score (null for a few pieces), vocabulary index] */
  word: [string[], number | null, number];
  children: Record<string, TrieNode | undefined>;
}

export interface LibraryTokenizer {
  trie: { root: TrieNode };
  /** [piece, score] by id. */
  vocabulary: readonly (readonly [string, number | null])[];
  encode(text: string): number[];
}

const BOUNDARY = '\u2581';

export function encodePieces(tokenizer: LibraryTokenizer, text: string): number[] {
  const vocabulary = tokenizer.vocabulary;
  const normalized = text.normalize('NFKC');
  if (normalized.length === 0) return [];
  const symbols = Array.from(BOUNDARY + normalized.replace(/ /g, BOUNDARY));
  const n = symbols.length;
  // The library's Viterbi, relaxed forwards: every candidate ending at a position starts before it, so
  // visiting starts in ascending order reaches each end's candidates in the library's order (start
  // ascending) with the best score of their start already final. No per-position candidate lists.
  const best = new Float64Array(n + 1);
  const words = new Int32Array(n + 1);
  const root = tokenizer.trie.root;
  for (let start = 0; start < n; start++) {
    const before = best[start]!;
    let node = root.children[symbols[start]!];
    let found = false;
    for (let at = start; at < n && node; at++) {
      if (node.end) {
        const score = (node.word[1] ?? 0) + before;
        if (best[at + 1] === 0 || score >= best[at + 1]!) {
          best[at + 1] = score;
          words[at + 1] = node.word[2];
        }
        found = true;
      }
      node = at + 1 < n ? node.children[symbols[at + 1]!] : undefined;
    }
    // No piece starts here: the unknown piece (id 0, score 0) for this one symbol.
    if (!found && (best[start + 1] === 0 || before >= best[start + 1]!)) {
      best[start + 1] = before;
      words[start + 1] = 0;
    }
  }
  const reversed: number[] = [];
  for (let at = n; at > 0; at -= vocabulary[words[at]!]![0].length) reversed.push(words[at]!);
  const ids: number[] = [];
  let previousUnknown = false;
  for (const id of reversed) {
    if (!(previousUnknown && id === 0)) ids.push(id);
    previousUnknown = id === 0;
  }
  return ids.reverse();
}
