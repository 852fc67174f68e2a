import { l2Normalize, type Embedder } from '../../server/ports/embedder.js';

/**
 * A deterministic hashed character-n-gram embedder ("feature hashing"): every word and every
 * character 3-gram of the lower-cased text is hashed to one of `dimension` buckets with a hashed sign,
 * and the sum is L2-normalised.
 *
 * It has NO semantics: two texts are similar only when they share spelling. It exists as a fast,
 * dependency-free fallback for tests and benchmarks (microseconds per text, no weights), and is never
 * the default: the default embedder is the local Universal Sentence Encoder (`use-lite.ts`).
 */
export class HashingEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;

  constructor(dimension = 512) {
    if (!Number.isInteger(dimension) || dimension < 8)
      throw new Error(`hashing embedder dimension must be an integer >= 8, got ${dimension}`);
    this.dimension = dimension;
    this.model = `hash-ngram-v1-${dimension}`;
  }

  async init(): Promise<void> {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dimension);
    const words =
      text
        .toLowerCase()
        .normalize('NFKC')
        .match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const w of words) {
      add(v, 'w:' + w, 1);
      const padded = `^${w}$`;
      for (let i = 0; i + 3 <= padded.length; i++) add(v, padded.slice(i, i + 3), 0.5);
    }
    return l2Normalize(v);
  }
}

function add(v: Float32Array, feature: string, weight: number): void {
  const h = fnv1a(feature);
  const bucket = h % v.length;
  const sign = h >>> 31 === 0 ? 1 : -1;
  v[bucket] = v[bucket]! + sign * weight;
}

/** 32-bit FNV-1a over UTF-16 code units, as an unsigned integer. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
