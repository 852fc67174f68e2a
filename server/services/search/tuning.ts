import type { SearchMode } from '../../ports/search-index.js';

/**
 * Retrieval tuning shared by both search index adapters (embedded and Qdrant), so the two profiles
 * weigh channels, graph expansion and keyword columns alike.
 */

/** How fused channels combine: reciprocal rank, or weighted scores after a normalisation. */
export type FusionMethod = { kind: 'rrf'; k: number } | { kind: 'weighted'; normalization: 'minmax' | 'zscore' };

/** Weights of the channels and how they are fused. Defaults measured by bench/retrieval-quality.ts. */
export interface FusionConfig {
  method: FusionMethod;
  /** Per mode and channel. A channel absent or at 0 is not run. */
  weights: {
    hybrid: { keyword: number; dense: number };
    'hybrid+graph': { keyword: number; dense: number; graph: number };
  };
}

/**
 * Chosen with bench/retrieval-quality.ts --sweep on the LoCoMo development split, laid out as the HTTP
 * benchmark writes it (one tenant, a namespace per conversation), over every combination of method,
 * weights and context weight, with leave-one-conversation-out selection (docs/embeddings.md). The
 * default lexical-augmented model's dense channel already carries stemmed term overlap, so it weighs
 * little beside BM25 (0.15 in hybrid; 0.3 beside the graph channel, which takes 0.15); min-max
 * normalisation beat z-score in nearly every held-out fold (RRF scored below both in an earlier grid).
 */
export const DEFAULT_FUSION: FusionConfig = {
  method: { kind: 'weighted', normalization: 'minmax' },
  weights: {
    hybrid: { keyword: 1, dense: 0.15 },
    'hybrid+graph': { keyword: 1, dense: 0.3, graph: 0.15 },
  },
};

export interface GraphConfig {
  /** Weight of a 1-hop related entity relative to its association strength (0 disables expansion). */
  hopWeight: number;
  /** Related entities followed per query entity. */
  neighborsPerSeed: number;
  /** Entities mentioned by more memories than this are not scanned (too generic to help). */
  maxDocFrequency: number;
  /** Query entities mentioned by more memories than this are not expanded to related entities. */
  maxExpandFrequency: number;
  /** Memories read per entity (the most recent that pass the filters), bounding the work of common entities. */
  maxMentionsPerEntity: number;
}

export const DEFAULT_GRAPH: GraphConfig = {
  hopWeight: 0.5,
  neighborsPerSeed: 8,
  maxDocFrequency: 5_000,
  maxExpandFrequency: 1_000,
  maxMentionsPerEntity: 200,
};

/**
 * Episodic context: memories written one after the other in the same namespace, at most `windowMs`
 * apart, belong to one episode (a conversation's consecutive turns: a question and its answer). After
 * the channels are fused, each of the top `candidates` passes `weight[mode]` times its score to the
 * memory just before and just after it (among those the filters allow), which can bring in a memory no
 * channel found. It uses only the scores of the mode's own channels. A weight of 0 turns it off.
 */
export interface ContextConfig {
  weight: Record<SearchMode, number>;
  windowMs: number;
  candidates: number;
}

export const DEFAULT_CONTEXT: ContextConfig = {
  // Chosen together with DEFAULT_FUSION by the sweep (figures: docs/performance.md#episodic-context-weight).
  // vector-only takes less (chosen with the lexical share): its single channel's scores are flatter, so a
  // larger share lets neighbours of middling hits push out direct matches.
  weight: { 'vector-only': 0.15, hybrid: 0.6, 'hybrid+graph': 0.6 },
  windowMs: 30 * 60_000,
  candidates: 50,
};

/** BM25 weights of the FTS columns (title, content, tags) of a tenant's table. */
export interface KeywordConfig {
  titleWeight: number;
  contentWeight: number;
  tagsWeight: number;
}

export const DEFAULT_KEYWORD: KeywordConfig = { titleWeight: 2, contentWeight: 1, tagsWeight: 1.5 };
