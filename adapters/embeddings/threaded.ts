import { Piscina } from 'piscina';
import { tsxWorkerExecArgv } from '../../server/tsx-worker.js';
import type { Embedder } from '../../server/ports/embedder.js';
import type { EmbedTask } from './embed-worker.js';
import { createEmbedder, type EmbedderConfig } from './index.js';

interface Waiting {
  texts: string[];
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: unknown) => void;
}

/**
 * Runs a CPU-bound embedder (the offline sentence encoder; figures:
 * docs/performance.md#the-full-encoder-on-worker-threads) in worker threads through piscina, so embedding never blocks the event loop that serves HTTP, and
 * consolidation and searches use a second core.
 *
 * Requests coalesce: while every thread is busy, the texts of the calls that arrive wait and go to the
 * next free thread as one batch (at most `maxBatch` texts). Concurrent searches thus share one model
 * run, which costs far less per text than a run each. Each caller gets its own vectors, in order.
 *
 * Model name and dimension come from an instance built on this thread that never loads its weights.
 */
export class ThreadedEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  private readonly pool: Piscina<EmbedTask, Float32Array[]>;
  private readonly threads: number;
  private readonly maxBatch: number;
  private waiting: Waiting[] = [];
  private inFlight = 0;
  private initialised: Promise<void> | null = null;
  /** Model runs and texts so far (what coalescing saved is texts / runs). */
  readonly stats = { runs: 0, texts: 0 };

  constructor(config: EmbedderConfig, options: { threads: number; maxBatch?: number }) {
    const probe = createEmbedder(config);
    this.model = probe.model;
    this.dimension = probe.dimension;
    this.threads = Math.max(1, options.threads);
    this.maxBatch = options.maxBatch ?? 64;
    this.pool = new Piscina<EmbedTask, Float32Array[]>({
      filename: new URL('./embed-worker.ts', import.meta.url).href,
      execArgv: tsxWorkerExecArgv(),
      workerData: config,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  /** Loads the model in every thread (in parallel), so the first real request does not wait for it. */
  init(): Promise<void> {
    this.initialised ??= Promise.all(Array.from({ length: this.threads }, () => this.pool.run({ op: 'init' }))).then(() => undefined);
    this.initialised.catch(() => (this.initialised = null));
    return this.initialised;
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.waiting.push({ texts, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }

  /** Sends what waits to free threads, one batch per thread. */
  private dispatch(): void {
    while (this.inFlight < this.threads && this.waiting.length > 0) {
      const batch: Waiting[] = [];
      let size = 0;
      // A call larger than maxBatch goes alone (the embedder batches internally); smaller ones share.
      while (this.waiting.length > 0 && (batch.length === 0 || size + this.waiting[0]!.texts.length <= this.maxBatch)) {
        const w = this.waiting.shift()!;
        batch.push(w);
        size += w.texts.length;
      }
      this.inFlight++;
      this.stats.runs++;
      this.stats.texts += size;
      this.pool
        .run({ op: 'embed', texts: batch.flatMap((w) => w.texts) })
        .then(
          (vectors) => {
            let at = 0;
            for (const w of batch) {
              w.resolve(vectors.slice(at, at + w.texts.length));
              at += w.texts.length;
            }
          },
          (err) => {
            for (const w of batch) w.reject(err);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.dispatch();
        });
    }
  }
}
