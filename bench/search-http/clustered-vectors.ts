/** Synthetic vectors with the clustered shape of sentence embeddings, for the IVF recall. */
import { rng } from '../support/corpus.js';

/**
 * A clustered stand-in for sentence embeddings (anisotropic, two-level topics): every vector is
 * normalise(a·g + b·topic + c·subtopic + d·noise) with a shared direction g, 1,000 Zipf-weighted topics
 * of 10 subtopics each, Gaussian noise; a² = 0.15, b² = 0.25, c² = 0.2, d² = 0.4, so the expected cosine
 * is ≈0.15 between unrelated vectors, ≈0.4 within a topic, ≈0.6 within a subtopic. Queries are drawn
 * the same way (fresh noise).
 */
export function clusteredVectors(n: number, seed: number, dim: number): Float32Array[] {
  const r = rng(seed);
  const gauss = () => {
    const u = Math.max(1e-12, r());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
  };
  const unit = (gen: () => number) => {
    const v = new Float32Array(dim);
    let s = 0;
    for (let j = 0; j < dim; j++) {
      v[j] = gen();
      s += v[j]! * v[j]!;
    }
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < dim; j++) v[j]! *= inv;
    return v;
  };
  const fixed = rng(4242);
  const fixedGauss = () => {
    const u = Math.max(1e-12, fixed());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * fixed());
  };
  const g = unit(fixedGauss);
  const topics = Array.from({ length: 1000 }, () => unit(fixedGauss));
  const subs = Array.from({ length: 1000 * 10 }, () => unit(fixedGauss));
  const [a, b, c, d] = [Math.sqrt(0.15), Math.sqrt(0.25), Math.sqrt(0.2), Math.sqrt(0.4)];
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const t = Math.min(999, Math.floor(Math.exp(r() * Math.log(1001)) - 1));
    const st = t * 10 + Math.floor(r() * 10);
    const noise = unit(gauss);
    const v = new Float32Array(dim);
    let s = 0;
    for (let j = 0; j < dim; j++) {
      v[j] = a * g[j]! + b * topics[t]![j]! + c * subs[st]![j]! + d * noise[j]!;
      s += v[j]! * v[j]!;
    }
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < dim; j++) v[j]! *= inv;
    out.push(v);
  }
  return out;
}
