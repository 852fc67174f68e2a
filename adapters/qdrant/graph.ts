import type { ExtractedEntity } from '../../server/ports/search-index.js';
import type { GraphConfig } from '../../server/services/search/tuning.js';
import { extractEntities, singularize } from '../../server/text/entities.js';
import { queryTerms } from '../../server/text/query-text.js';

/**
 * The entity-graph channel's arithmetic, mirrored from the embedded index (`graphChannel` in
 * adapters/embedded/search/graph-channel.ts) so both profiles weigh entities alike. Pure; the Qdrant adapter
 * fetches the counts (entity statistics points, facets) and turns the weights into a sparse query.
 */

/** The graph tuning both profiles share (`GraphConfig`); `maxMentionsPerEntity` has no Qdrant counterpart (docs/search-qdrant.md). */
export type GraphParams = Pick<GraphConfig, 'hopWeight' | 'neighborsPerSeed' | 'maxDocFrequency' | 'maxExpandFrequency'>;

/** Most entities whose memories the channel reads (the strongest weights), as the embedded index reads. */
export const MAX_GRAPH_ENTITIES = 24;

/** Co-mentioned entities considered per seed: the most frequent companions, as the embedded index reads its strongest edges. */
export function companionsPerSeed(g: Pick<GraphParams, 'neighborsPerSeed'>): number {
  return g.neighborsPerSeed * 4;
}

/** Most entities linked per memory (the embedded index's MAX_ENTITIES_PER_DOC). */
export const MAX_ENTITIES_PER_DOC = 16;

/** The entity keys a memory is linked to: the first 16 distinct non-empty keys, in order. */
export function documentEntityKeys(entities: readonly ExtractedEntity[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const e of entities) {
    if (out.length >= MAX_ENTITIES_PER_DOC) break;
    if (!e.key || seen.has(e.key)) continue;
    seen.add(e.key);
    out.push(e.key);
  }
  return out;
}

/**
 * The keys a query may mean: extracted entities, the singularised content terms, and adjacent pairs
 * of them ("new york"), exactly as the embedded graph channel forms them.
 */
export function graphQueryKeys(text: string): string[] {
  const terms = queryTerms(text).map(singularize);
  const keys = new Set<string>(extractEntities(text, { max: 24 }).map((e) => e.key));
  for (const t of terms) keys.add(t);
  for (let i = 0; i + 1 < terms.length; i++) keys.add(`${terms[i]} ${terms[i + 1]}`);
  keys.delete('');
  return [...keys];
}

export interface GraphCounts {
  /** Memories of the tenant (any status). */
  tenantDocs: number;
  /** Query keys known in the tenant, with how many memories mention each. */
  seeds: readonly { key: string; df: number }[];
  /**
   * Per seed key: entities co-mentioned with it, with the number of memories mentioning both
   * (`cooccurrences`) and their own frequency (`df`).
   */
  neighbors: ReadonlyMap<string, readonly { key: string; cooccurrences: number; df: number }[]>;
}

/**
 * Entity weights of the graph channel: a seed weighs its specificity ln(1 + N/df); a seed mentioned by
 * at most `maxExpandFrequency` memories is expanded to its most frequent companions
 * (`companionsPerSeed`), of which the best `neighborsPerSeed` by hopWeight · cooc(a,b)/√(df_a·df_b) ·
 * ln(1 + N/df_b) join; an entity reached twice keeps its largest weight. Only the
 * `MAX_GRAPH_ENTITIES` strongest are kept (ties by key). A memory's graph score is the sum of the
 * weights of the entities it mentions.
 */
export function graphWeights(counts: GraphCounts, g: GraphParams): Map<string, number> {
  const n = Math.max(1, counts.tenantDocs);
  const idf = (df: number) => Math.log(1 + n / Math.max(1, df));
  const weight = new Map<string, number>();
  const seedDf = new Map<string, number>();
  for (const s of counts.seeds) {
    if (!(s.df > 0) || s.df > g.maxDocFrequency) continue;
    weight.set(s.key, idf(s.df));
    seedDf.set(s.key, s.df);
  }
  if (g.hopWeight > 0 && g.neighborsPerSeed > 0) {
    for (const [a, dfA] of seedDf) {
      if (dfA > g.maxExpandFrequency) continue;
      const list = (counts.neighbors.get(a) ?? [])
        .filter((e) => e.key !== a && e.cooccurrences > 0)
        .sort((x, y) => y.cooccurrences - x.cooccurrences || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
        .slice(0, companionsPerSeed(g))
        .filter((e) => e.df > 0 && e.df <= g.maxDocFrequency)
        .map((e) => ({ key: e.key, score: (e.cooccurrences / Math.sqrt(dfA * Math.max(1, e.df))) * idf(e.df) }))
        .sort((x, y) => y.score - x.score || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
      for (const { key, score } of list.slice(0, g.neighborsPerSeed)) {
        const w = g.hopWeight * score;
        if (w > (weight.get(key) ?? 0)) weight.set(key, w);
      }
    }
  }
  if (weight.size <= MAX_GRAPH_ENTITIES) return weight;
  const strongest = [...weight].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  return new Map(strongest.slice(0, MAX_GRAPH_ENTITIES));
}
