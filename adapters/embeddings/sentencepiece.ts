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

/**
 * The library's trie flattened into typed arrays: nodes by index (0 is the root), each node's edges
 * contiguous and sorted by code point. The library's trie is a tree of objects with string-keyed
 * children; walking it touches a scattered cache line per step, which is slow when other work evicts it
 * between queries, as a search does. These arrays take about half the time and stay a few hundred KiB
 * (figures: docs/performance.md#flat-sentencepiece-trie).
 */
interface FlatTrie {
  firstEdge: Int32Array;
  edgeCount: Int32Array;
  edgeSymbol: Int32Array;
  edgeTarget: Int32Array;
  /** The vocabulary index of the piece ending at a node, or -1 where none ends. */
  pieceId: Int32Array;
  /** Its score, a null score counting as 0. */
  pieceScore: Float64Array;
  /** By vocabulary index: the piece's string length, the backward walk's step. */
  pieceLength: Int32Array;
}

const flattened = new WeakMap<LibraryTokenizer, FlatTrie>();

function codePointOf(symbol: string): number {
  const code = symbol.codePointAt(0);
  // Keys are single symbols of `Array.from`, as the text's are; anything else would not match alike.
  if (code === undefined || String.fromCodePoint(code) !== symbol)
    throw new Error(`unexpected SentencePiece trie key ${JSON.stringify(symbol)}`);
  return code;
}

function flatten(tokenizer: LibraryTokenizer): FlatTrie {
  const nodes: TrieNode[] = [tokenizer.trie.root];
  const edges: { symbol: number; target: number }[][] = [];
  for (let i = 0; i < nodes.length; i++) {
    const out: { symbol: number; target: number }[] = [];
    for (const [key, child] of Object.entries(nodes[i]!.children)) {
      if (!child) continue;
      out.push({ symbol: codePointOf(key), target: nodes.length });
      nodes.push(child);
    }
    edges.push(out.sort((a, b) => a.symbol - b.symbol));
  }
  const trie: FlatTrie = {
    firstEdge: new Int32Array(nodes.length),
    edgeCount: new Int32Array(nodes.length),
    edgeSymbol: new Int32Array(nodes.length - 1),
    edgeTarget: new Int32Array(nodes.length - 1),
    pieceId: new Int32Array(nodes.length).fill(-1),
    pieceScore: new Float64Array(nodes.length),
    pieceLength: Int32Array.from(tokenizer.vocabulary, ([piece]) => piece.length),
  };
  let next = 0;
  nodes.forEach((node, i) => {
    trie.firstEdge[i] = next;
    trie.edgeCount[i] = edges[i]!.length;
    for (const e of edges[i]!) {
      trie.edgeSymbol[next] = e.symbol;
      trie.edgeTarget[next++] = e.target;
    }
    if (node.end) {
      trie.pieceId[i] = node.word[2];
      trie.pieceScore[i] = node.word[1] ?? 0;
    }
  });
  return trie;
}

/** The child of `node` along `symbol`, or -1 (binary search over the node's sorted edges). */
function childOf(trie: FlatTrie, node: number, symbol: number): number {
  let lo = trie.firstEdge[node]!;
  let hi = lo + trie.edgeCount[node]! - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const s = trie.edgeSymbol[mid]!;
    if (s === symbol) return trie.edgeTarget[mid]!;
    if (s < symbol) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export function encodePieces(tokenizer: LibraryTokenizer, text: string): number[] {
  let trie = flattened.get(tokenizer);
  if (!trie) {
    trie = flatten(tokenizer);
    flattened.set(tokenizer, trie);
  }
  const normalized = text.normalize('NFKC');
  if (normalized.length === 0) return [];
  const symbols: number[] = [];
  for (const symbol of BOUNDARY + normalized.replace(/ /g, BOUNDARY)) symbols.push(symbol.codePointAt(0)!);
  const n = symbols.length;
  // The library's Viterbi, relaxed forwards: every candidate ending at a position starts before it, so
  // visiting starts in ascending order reaches each end's candidates in the library's order (start
  // ascending) with the best score of their start already final. No per-position candidate lists.
  const best = new Float64Array(n + 1);
  const words = new Int32Array(n + 1);
  for (let start = 0; start < n; start++) {
    const before = best[start]!;
    let node = childOf(trie, 0, symbols[start]!);
    let found = false;
    for (let at = start; at < n && node >= 0; at++) {
      const id = trie.pieceId[node]!;
      if (id >= 0) {
        const score = trie.pieceScore[node]! + before;
        if (best[at + 1] === 0 || score >= best[at + 1]!) {
          best[at + 1] = score;
          words[at + 1] = id;
        }
        found = true;
      }
      node = at + 1 < n ? childOf(trie, node, symbols[at + 1]!) : -1;
    }
    // No piece starts here: the unknown piece (id 0, score 0) for this one symbol.
    if (!found && (best[start + 1] === 0 || before >= best[start + 1]!)) {
      best[start + 1] = before;
      words[start + 1] = 0;
    }
  }
  const reversed: number[] = [];
  for (let at = n; at > 0; at -= trie.pieceLength[words[at]!]!) reversed.push(words[at]!);
  const ids: number[] = [];
  let previousUnknown = false;
  for (const id of reversed) {
    if (!(previousUnknown && id === 0)) ids.push(id);
    previousUnknown = id === 0;
  }
  return ids.reverse();
}
