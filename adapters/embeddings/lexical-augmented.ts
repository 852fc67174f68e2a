import type { Embedder } from '../../server/ports/embedder.js';
import { lexicalVectorInto } from './lexical-features.js';

export interface LexicalAugmentedOptions {
  /** Buckets of the hashed lexical part (default 1024). Base + lexical must stay a multiple of 16, the
   * SIMD scan's unit (`adapters/embedded/search/int8-scan.ts`). */
  lexicalDimension?: number;
  /** Share of the cosine that comes from the lexical part, in [0, 1] (default DEFAULT_LEXICAL_SHARE). */
  lexicalShare?: number;
}

/**
 * Chosen by leave-one-conversation-out selection on the LoCoMo dev split (`bench/retrieval-quality.ts
 * --sweep`): the selection picked this share for every held-out conversation. See docs/embeddings.md.
 */
export const DEFAULT_LEXICAL_SHARE = 0.7;
export const DEFAULT_LEXICAL_DIMENSION = 1024;

/**
 * A sentence embedding concatenated with hashed lexical features of the same text:
 *
 *   v(text) = [ a · base(text)  ⊕  b · lexical(text) ],   a = √(1 − s), b = √s,
 *
 * with both parts unit-length, so v is unit-length and v(q)·v(d) = (1 − s)·cos_base + s·cos_lexical.
 * One dot product, one vector per memory: every index that stores and scans dense vectors (the embedded
 * SIMD scan, IVF, Qdrant) serves it unchanged. The base model alone (Universal Sentence Encoder lite)
 * matches paraphrases but misses the exact names, objects and events a question repeats from a memory;
 * the lexical part matches those (stemmed, as the keyword channel does), and the sum ranks above either.
 *
 * The model name records the base model, the lexical dimension, the share and the feature version, so
 * an index built with other settings is refused at start-up (and `tenant-memory reindex` rebuilds it).
 */
export class LexicalAugmentedEmbedder implements Embedder {
  readonly lexicalDimension: number;
  readonly lexicalShare: number;
  private readonly a: number;
  private readonly b: number;

  constructor(
    readonly base: Embedder,
    options: LexicalAugmentedOptions = {},
  ) {
    this.lexicalDimension = options.lexicalDimension ?? DEFAULT_LEXICAL_DIMENSION;
    this.lexicalShare = options.lexicalShare ?? DEFAULT_LEXICAL_SHARE;
    if (!Number.isInteger(this.lexicalDimension) || this.lexicalDimension < 16 || this.lexicalDimension % 16 !== 0) {
      throw new Error(`lexical dimension must be a positive multiple of 16, got ${this.lexicalDimension}`);
    }
    if (!(this.lexicalShare >= 0 && this.lexicalShare <= 1)) throw new Error(`lexical share must be in [0, 1], got ${this.lexicalShare}`);
    this.a = Math.sqrt(1 - this.lexicalShare);
    this.b = Math.sqrt(this.lexicalShare);
  }

  get model(): string {
    return `${this.base.model}+lex-porter-h${this.lexicalDimension}-s${this.lexicalShare.toFixed(2)}-v1`;
  }

  /** 0 until a base that discovers its dimension has answered once (see the Embedder port). */
  get dimension(): number {
    return this.base.dimension === 0 ? 0 : this.base.dimension + this.lexicalDimension;
  }

  init(): Promise<void> {
    return this.base.init();
  }

  /** Releases whatever the base holds (threads, connections); the lexical part holds nothing. */
  async close(): Promise<void> {
    await this.base.close?.();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const semantic = await this.base.embed(texts);
    return semantic.map((v, i) => this.combine(v, texts[i]!));
  }

  /** The vector of `text` given its (unit-length) base embedding. */
  combine(semantic: Float32Array, text: string): Float32Array {
    const out = new Float32Array(semantic.length + this.lexicalDimension);
    for (let i = 0; i < semantic.length; i++) out[i] = this.a * semantic[i]!;
    const lexical = lexicalVectorInto(text, out.subarray(semantic.length));
    for (let i = 0; i < lexical.length; i++) lexical[i] = this.b * lexical[i]!;
    return out;
  }
}
