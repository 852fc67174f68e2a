import type { FusionMethod } from './tuning.js';

/**
 * Rank fusion of retrieval channels, for both search index adapters: each channel gives a list ordered
 * best first with a raw score (higher is better), keyed by whatever identifies a memory in the adapter
 * (the embedded index's document number, the Qdrant adapter's memory id). Two families are
 * implemented; `bench/retrieval-quality.ts` measures them and the defaults come from that measurement
 * (DEFAULT_FUSION in ./tuning.ts). Both profiles fuse here, so a change to the formula changes both.
 */

export interface ChannelHit<K> {
  key: K;
  score: number;
}

export interface Channel<K> {
  name: string;
  weight: number;
  hits: ChannelHit<K>[];
}

/** Reciprocal rank fusion: sum over channels of weight / (k + rank), rank starting at 1. */
export function rrf<K>(channels: readonly Channel<K>[], k: number): Map<K, number> {
  const out = new Map<K, number>();
  for (const c of channels) {
    c.hits.forEach((h, i) => {
      out.set(h.key, (out.get(h.key) ?? 0) + c.weight / (k + i + 1));
    });
  }
  return out;
}

/**
 * Weighted score fusion: each channel's scores are normalised over its own candidate list (min-max to
 * 0..1, or z-score), then summed with the channel weights. A candidate absent from a channel gets that
 * channel's floor (0 for min-max, the list minimum's z for z-score).
 */
export function weightedFusion<K>(channels: readonly Channel<K>[], normalization: 'minmax' | 'zscore'): Map<K, number> {
  const out = new Map<K, number>();
  const floors: number[] = [];
  const normalised = channels.map((c) => {
    const scores = c.hits.map((h) => h.score);
    const m = new Map<K, number>();
    if (scores.length === 0) {
      floors.push(0);
      return m;
    }
    if (normalization === 'minmax') {
      const lo = Math.min(...scores);
      const hi = Math.max(...scores);
      const span = hi - lo;
      for (const h of c.hits) m.set(h.key, span > 0 ? (h.score - lo) / span : 1);
      floors.push(0);
    } else {
      const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
      const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length) || 1;
      for (const h of c.hits) m.set(h.key, (h.score - mean) / sd);
      floors.push((Math.min(...scores) - mean) / sd);
    }
    return m;
  });
  const keys = new Set<K>();
  for (const c of channels) for (const h of c.hits) keys.add(h.key);
  for (const key of keys) {
    let s = 0;
    channels.forEach((c, i) => {
      s += c.weight * (normalised[i]!.get(key) ?? floors[i]!);
    });
    out.set(key, s);
  }
  return out;
}

/** Fuses the channels that have a weight and at least one hit. */
export function fuse<K>(channels: readonly Channel<K>[], method: FusionMethod): Map<K, number> {
  const live = channels.filter((c) => c.weight > 0 && c.hits.length > 0);
  return method.kind === 'rrf' ? rrf(live, method.k) : weightedFusion(live, method.normalization);
}

/**
 * The fused scores of a search: a lone channel with hits keeps its raw scores (vector-only search, or
 * a hybrid query whose other channels found nothing); two or more are fused by `method`.
 */
export function fuseChannels<K>(channels: readonly Channel<K>[], method: FusionMethod): Map<K, number> {
  const live = channels.filter((c) => c.weight > 0 && c.hits.length > 0);
  if (live.length === 1) return new Map(live[0]!.hits.map((h) => [h.key, h.score]));
  return fuse(live, method);
}
