import type { Embedder } from '../../server/ports/embedder.js';
import { HashingEmbedder } from './hashing.js';
import { LexicalAugmentedEmbedder } from './lexical-augmented.js';
import { OpenAiCompatibleEmbedder } from './openai-compatible.js';
import { UseLiteEmbedder } from './use-lite.js';

export interface EmbedderConfig {
  /** `local` (default in the app): Universal Sentence Encoder lite with hashed lexical features
   * (`lexical-augmented.ts`), in-process, offline. `openai`: an
   * OpenAI-compatible service. `hash`: hashed n-grams, no semantics, for tests and benchmarks only. */
  provider: 'local' | 'openai' | 'hash';
  url?: string;
  model?: string;
  apiKey?: string;
  dimension?: number;
}

export function createEmbedder(config: EmbedderConfig): Embedder {
  switch (config.provider) {
    case 'local':
      // USE-lite alone retrieves below plain BM25 on conversational memories; with the lexical part
      // the dense channel alone beats it (docs/embeddings.md).
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

export { HashingEmbedder, LexicalAugmentedEmbedder, OpenAiCompatibleEmbedder, UseLiteEmbedder };
