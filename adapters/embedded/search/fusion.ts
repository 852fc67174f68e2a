import type { FusionMethod } from '../../../server/services/search/tuning.js';

/**
 * Rank fusion of retrieval channels. Each channel gives a list ordered best first with a raw score
 * (higher is better). Two families are implemented; `bench/retrieval-quality.ts` measures them and the
 * index's defaults come from that measurement (see DEFAULT_FUSION in server/services/search/tuning.ts).
 */

export interface ChannelHit {
  key: number;
  score: number;
}

export interface Channel {
  name: string;
  weight: number;
  hits: ChannelHit[];
}

/** Reciprocal rank fusion: sum over channels of weight / (k + rank), rank starting at 1. */
export function rrf(channels: Channel[], k: number): Map<number, number> {
  const out = new Map<number, number>();
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
export function weightedFusion(channels: Channel[], normalization: 'minmax' | 'zscore'): Map<number, number> {
  const out = new Map<number, number>();
  const floors: number[] = [];
  const normalised = channels.map((c) => {
    const scores = c.hits.map((h) => h.score);
    const m = new Map<number, number>();
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
  const keys = new Set<number>();
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

export function fuse(channels: Channel[], method: FusionMethod): Map<number, number> {
  const live = channels.filter((c) => c.weight > 0 && c.hits.length > 0);
  return method.kind === 'rrf' ? rrf(live, method.k) : weightedFusion(live, method.normalization);
}
