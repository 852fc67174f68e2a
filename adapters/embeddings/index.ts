import type { Embedder } from '../../server/ports/embedder.js';
import { HashingEmbedder } from './hashing.js';
import { LexicalAugmentedEmbedder } from './lexical-augmented.js';
import { OpenAiCompatibleEmbedder } from './openai-compatible.js';
import { StaticUseEmbedder } from './static-use.js';
import { UseLiteEmbedder } from './use-lite.js';

export interface EmbedderConfig {
  /** `local` (default in the app): Universal Sentence Encoder lite distilled to static token vectors
   * (`static-use.ts`) with hashed lexical features (`lexical-augmented.ts`), in-process, offline, and
   * cheap. `use-lite`: the full encoder (a transformer, far costlier per text; figures:
   * docs/performance.md#static-use-lite-by-default) with the same lexical features. `openai`: an OpenAI-compatible service. `hash`: hashed n-grams, no
   * semantics, for tests and benchmarks only. */
  provider: EmbeddingsProvider;
  url?: string;
  model?: string;
  apiKey?: string;
  dimension?: number;
}

/** The same values as `EMBEDDINGS_PROVIDER` in `server/config.ts`: the composition root passes one to the
 * other, so the type-check catches the two lists drifting apart. */
export type EmbeddingsProvider = 'local' | 'use-lite' | 'openai' | 'hash';

export function createEmbedder(config: EmbedderConfig): Embedder {
  switch (config.provider) {
    // A sentence model alone retrieves below plain BM25 on conversational memories; with the lexical
    // part the dense channel alone beats it (docs/embeddings.md).
    case 'local':
      return new LexicalAugmentedEmbedder(new StaticUseEmbedder());
    case 'use-lite':
      return new LexicalAugmentedEmbedder(new UseLiteEmbedder());
    case 'hash':
      return new HashingEmbedder(config.dimension ?? 512);
    case 'openai': {
      if (!config.url) throw new Error('embedding provider "openai" needs a url');
      if (!config.model) throw new Error('embedding provider "openai" needs a model name');
      return new OpenAiCompatibleEmbedder({
        url: config.url,
        model: config.model,
        ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
        ...(config.dimension !== undefined ? { dimension: config.dimension } : {}),
      });
    }
    default: {
      const never: never = config.provider;
      throw new Error(`unknown embedding provider ${String(never)}`);
    }
  }
}

export { HashingEmbedder, LexicalAugmentedEmbedder, OpenAiCompatibleEmbedder, StaticUseEmbedder, UseLiteEmbedder };
