import { dot, type RowFilter, type TenantCache } from './tenant-cache.js';
import { TopK } from './top-k.js';

/**
 * Inverted-file (IVF) approximate nearest-neighbour index over one tenant's cache (`tenant-cache.ts`).
 *
 * k-means (spherical: unit vectors, dot product) partitions the vectors into `lists` cells; a query
 * scores the centroids, then scans exactly the vectors of the `probes` best cells. Filters are applied
 * inside the scan; when fewer than k rows pass, more cells are probed until k are found or every cell
 * was scanned, so a selective filter never loses results to a top-k cut.
 *
 * Built in the background (the matrix products run on the TensorFlow.js WebAssembly backend, already
 * loaded for the local embedder, in slices that yield to the event loop); until it is ready, searches
 * fall back to the full scan. Vectors written after the build are assigned to their nearest centroid
 * on the next search; the index retrains when the tenant grew by half since training.
 */
export interface IvfOptions {
  /** Cells; default about sqrt(n). */
  lists: number;
  /** Cells scanned per query (default 24). */
  probes: number;
  /** k-means iterations over the training sample (default 5). */
  iterations: number;
  /** Training sample size (default 25 per cell). */
  samplePerList: number;
}

/** The few TensorFlow.js calls used here (the package re-exports tfjs-core without shipping its types). */
interface Tensor {
  data<T extends 'int32'>(): Promise<T extends 'int32' ? Int32Array : never>;
  dispose(): void;
}
interface Tf {
  ready(): Promise<void>;
  tensor2d(values: Float32Array, shape: [number, number]): Tensor;
  tidy<T>(fn: () => T): T;
  matMul(a: Tensor, b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
  argMax(x: Tensor, axis?: number): Tensor;
}

let tfPromise: Promise<Tf> | null = null;
function loadTf(): Promise<Tf> {
  tfPromise ??= import('@energetic-ai/core').then(async (mod) => {
    const tf = ((mod as { default?: unknown }).default ?? mod) as Tf;
    await tf.ready();
    return tf;
  });
  return tfPromise;
}

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

export class IvfIndex {
  private readonly options: IvfOptions;
  private centroids: Float32Array | null = null;
  private nLists = 0;
  private lists: number[][] = [];
  private assigned = new Map<number, number>();
  private builtVersion = -1;
  private trainedSize = 0;
  private building: Promise<void> | null = null;
  private cancelled = false;

  constructor(
    private readonly cache: TenantCache,
    options: Partial<IvfOptions> = {},
  ) {
    this.options = {
      lists: options.lists ?? 0,
      probes: options.probes ?? 24,
      iterations: options.iterations ?? 5,
      samplePerList: options.samplePerList ?? 25,
    };
    this.startBuild();
  }

  get ready(): boolean {
    return this.centroids !== null;
  }

  cancel(): void {
    this.cancelled = true;
  }

  whenReady(): Promise<void> {
    return this.building ?? Promise.resolve();
  }

  private startBuild(): void {
    if (this.building) return;
    this.building = this.build()
      .catch((err: unknown) => {
        // A failed build leaves the full scan in charge; the next search may try again.
        console.error('IVF build failed; the full scan stays in use:', err);
      })
      .finally(() => {
        this.building = null;
      });
  }

  private async build(): Promise<void> {
    const tf = await loadTf();
    const c = this.cache;
    const dim = c.dim;
    // Rows without a vector (e.g. during a reindex) are not part of the index: they join it as new rows
    // once their vector arrives (refresh()).
    const withVector = (): number[] => {
      const out: number[] = [];
      for (let i = 0; i < c.size; i++) if (c.hasVectorAt(i)) out.push(i);
      return out;
    };
    const trainRows = withVector();
    const n = trainRows.length;
    if (n === 0) throw new Error('no vectors to index');
    const nLists = this.options.lists > 0 ? this.options.lists : Math.max(8, Math.round(Math.sqrt(n)));
    const sampleSize = Math.min(n, nLists * this.options.samplePerList);
    // Deterministic sample: evenly spaced rows.
    const step = n / sampleSize;
    const sample = new Float32Array(sampleSize * dim);
    for (let s = 0; s < sampleSize; s++) {
      const i = trainRows[Math.floor(s * step)]!;
      sample.set(c.row(i), s * dim);
    }
    const cent = new Float32Array(nLists * dim);
    for (let l = 0; l < nLists; l++) {
      const s = Math.floor((l * sampleSize) / nLists);
      cent.set(sample.subarray(s * dim, (s + 1) * dim), l * dim);
    }
    const assignRows = async (rows: Float32Array, count: number): Promise<Int32Array> => {
      const out = new Int32Array(count);
      const batch = 2048;
      const ct = tf.tensor2d(cent, [nLists, dim]);
      try {
        for (let b = 0; b < count; b += batch) {
          if (this.cancelled) throw new Error('cancelled');
          const m = Math.min(batch, count - b);
          const idx = tf.tidy(() => {
            const x = tf.tensor2d(rows.subarray(b * dim, (b + m) * dim), [m, dim]);
            return tf.argMax(tf.matMul(x, ct, false, true), 1);
          });
          out.set(await idx.data<'int32'>(), b);
          idx.dispose();
          await yieldToLoop();
        }
      } finally {
        ct.dispose();
      }
      return out;
    };
    for (let it = 0; it < this.options.iterations; it++) {
      const a = await assignRows(sample, sampleSize);
      const sums = new Float32Array(nLists * dim);
      const counts = new Int32Array(nLists);
      for (let s = 0; s < sampleSize; s++) {
        const l = a[s]!;
        counts[l]!++;
        for (let j = 0; j < dim; j++) sums[l * dim + j]! += sample[s * dim + j]!;
      }
      for (let l = 0; l < nLists; l++) {
        if (counts[l] === 0) {
          // Empty cell: reseed from a sample row chosen deterministically.
          const s = (l * 7919 + it) % sampleSize;
          cent.set(sample.subarray(s * dim, (s + 1) * dim), l * dim);
          continue;
        }
        let norm = 0;
        for (let j = 0; j < dim; j++) norm += sums[l * dim + j]! ** 2;
        const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
        for (let j = 0; j < dim; j++) cent[l * dim + j] = sums[l * dim + j]! * inv;
      }
    }
    // Assign every row of the cache as it is now (the cache may change meanwhile; see refresh()).
    const version = c.version;
    const indexed = withVector();
    const size = indexed.length;
    const rows = new Float32Array(size * dim);
    for (let k = 0; k < size; k++) rows.set(c.row(indexed[k]!), k * dim);
    const docIds = indexed.map((i) => c.docIds[i]!);
    const a = await assignRows(rows, size);
    const lists: number[][] = Array.from({ length: nLists }, () => []);
    const assigned = new Map<number, number>();
    for (let i = 0; i < size; i++) {
      lists[a[i]!]!.push(docIds[i]!);
      assigned.set(docIds[i]!, a[i]!);
    }
    this.centroids = cent;
    this.nLists = nLists;
    this.lists = lists;
    this.assigned = assigned;
    this.builtVersion = version;
    this.trainedSize = size;
  }

  /** Brings list membership up to date with the cache (new rows assigned in JS, gone rows dropped). */
  private refresh(): void {
    const c = this.cache;
    if (this.builtVersion === c.version || !this.centroids) return;
    const dim = c.dim;
    const present = new Set<number>();
    for (let i = 0; i < c.size; i++) {
      if (!c.hasVectorAt(i)) continue; // not indexed; a doc that lost its vector is dropped below
      const id = c.docIds[i]!;
      present.add(id);
      if (this.assigned.has(id)) continue;
      let best = 0;
      let bestScore = -Infinity;
      const row = c.row(i);
      for (let l = 0; l < this.nLists; l++) {
        const s = dot(this.centroids, l * dim, row, dim);
        if (s > bestScore) {
          bestScore = s;
          best = l;
        }
      }
      this.assigned.set(id, best);
      this.lists[best]!.push(id);
    }
    if (present.size < this.assigned.size) {
      for (const [id, l] of this.assigned) {
        if (present.has(id)) continue;
        this.assigned.delete(id);
        const list = this.lists[l]!;
        const at = list.indexOf(id);
        if (at >= 0) list.splice(at, 1);
      }
    }
    // Vectors may have been replaced in place (same doc id, new embedding): their cell is then stale
    // until the next retrain; the exact rescoring below still uses the current vector.
    this.builtVersion = c.version;
    if (c.vectorCount > this.trainedSize * 1.5) this.startBuild();
  }

  /** Approximate top-k, or null while the index is not built yet. */
  search(q: Float32Array, k: number, f: RowFilter, probes = this.options.probes): { docId: number; score: number }[] | null {
    if (!this.centroids) return null;
    this.refresh();
    const c = this.cache;
    const dim = c.dim;
    const order: [number, number][] = [];
    for (let l = 0; l < this.nLists; l++) order.push([l, dot(this.centroids, l * dim, q, dim)]);
    order.sort((a, b) => b[1] - a[1]);
    const top = new TopK(k);
    const position = c.position;
    let passed = 0;
    for (let p = 0; p < order.length; p++) {
      if (p >= probes && passed >= k) break;
      for (const id of this.lists[order[p]![0]]!) {
        const i = position.get(id);
        if (i === undefined || !c.acceptsVector(i, f)) continue;
        passed++;
        top.push(i, c.dotRow(i, q));
      }
    }
    return top.sorted().map(([i, score]) => ({ docId: c.docIds[i]!, score }));
  }
}
