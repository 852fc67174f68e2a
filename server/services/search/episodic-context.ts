/**
 * Episodic context, for both search index adapters: after fusion, each of the best `candidates` fused
 * results lends `weight` times its score to the memories written just before and just after it in its
 * namespace (within the window, among those the query's filters allow), which can bring in a memory no
 * channel found. A neighbour of several seeds keeps the largest loan. What "just before and after"
 * means (`ContextConfig` in ./tuning.ts) is the adapter's to look up: the embedded index from its
 * in-process namespace timelines, the Qdrant adapter with one batched request for every seed; the
 * choice of seeds and the arithmetic are here.
 */

export interface Neighbours<K> {
  before: K | null;
  after: K | null;
}

/**
 * The seeds: the best `n` fused results, ties by `keyBefore` (the lower key first), best first. A bounded
 * heap, since the embedded index calls this on every search with up to a few hundred candidates.
 */
export function contextSeeds<K>(fused: ReadonlyMap<K, number>, n: number, keyBefore: (a: K, b: K) => boolean): [K, number][] {
  const keys: K[] = [];
  const scores: number[] = [];
  // A min-heap whose root is the worst pair kept: (lower score, or the same score and the later key).
  const worse = (sa: number, ka: K, sb: number, kb: K) => sa < sb || (sa === sb && keyBefore(kb, ka));
  const place = (i: number, key: K, score: number) => {
    keys[i] = key;
    scores[i] = score;
  };
  if (n > 0) {
    for (const [key, score] of fused) {
      if (keys.length < n) {
        let i = keys.length;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (!worse(score, key, scores[p]!, keys[p]!)) break;
          place(i, keys[p]!, scores[p]!);
          i = p;
        }
        place(i, key, score);
        continue;
      }
      // Most candidates stop here: no better than the worst kept.
      if (!worse(scores[0]!, keys[0]!, score, key)) continue;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= keys.length) break;
        const r = l + 1;
        const m = r < keys.length && worse(scores[r]!, keys[r]!, scores[l]!, keys[l]!) ? r : l;
        if (!worse(scores[m]!, keys[m]!, score, key)) break;
        place(i, keys[m]!, scores[m]!);
        i = m;
      }
      place(i, key, score);
    }
  }
  const out: [K, number][] = keys.map((k, i) => [k, scores[i]!]);
  return out.sort((a, b) => b[1] - a[1] || (keyBefore(a[0], b[0]) ? -1 : keyBefore(b[0], a[0]) ? 1 : 0));
}

/**
 * Adds the loans to `fused` in place (it is the search's own map): each seed's neighbours get
 * `weight` × the seed's score, a neighbour of several seeds the largest; all loans are computed from
 * the scores before any is added.
 */
export function lendToNeighbours<K>(
  fused: Map<K, number>,
  seeds: readonly (readonly [K, number])[],
  weight: number,
  neighbours: (key: K) => Neighbours<K>,
): void {
  if (!(weight > 0)) return;
  const bonus = new Map<K, number>();
  for (const [key, score] of seeds) {
    const { before, after } = neighbours(key);
    for (const n of [before, after]) {
      if (n === null) continue;
      const b = weight * score;
      if (b > (bonus.get(n) ?? 0)) bonus.set(n, b);
    }
  }
  for (const [key, b] of bonus) fused.set(key, (fused.get(key) ?? 0) + b);
}
