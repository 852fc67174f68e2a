/**
 * Turns text into dense vectors. Implementations live in `adapters/embeddings/`.
 *
 * - `model` names the model (recorded by the search index so that vectors of two models never mix).
 * - `dimension` is the vector length. An implementation that discovers it from its first answer
 *   (an OpenAI-compatible service without a configured dimension) reports 0 until `init()` resolved.
 * - `embed` accepts any number of texts, batches internally, and returns one L2-normalised vector per
 *   text, in input order.
 */
export interface Embedder {
  readonly model: string;
  readonly dimension: number;
  /** Loads weights or discovers the dimension. Idempotent; `embed` calls it implicitly. */
  init(): Promise<void>;
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Releases threads or connections, when the implementation holds any; unusable afterwards. */
  close?(): Promise<void>;
}

/** Scales a vector to unit length in place (a zero vector stays zero). Returns it. */
export function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  }
  return v;
}
