import { describe, expect, it } from 'vitest';
import { HashingEmbedder } from '../../adapters/embeddings/hashing.js';
import { LexicalAugmentedEmbedder } from '../../adapters/embeddings/lexical-augmented.js';
import { lexicalTerms, lexicalVector } from '../../adapters/embeddings/lexical-features.js';
import type { Embedder } from '../../server/ports/embedder.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('hashed lexical features', () => {
  it('keeps content stems only, stemmed as the keyword index stems them, with their frequencies', () => {
    expect([...lexicalTerms('When did she visit the museums? She visited museum after museum.')]).toEqual([
      ['visit', 2],
      ['museum', 3],
    ]);
    // Stop-words only: the tokens themselves, so such a text still has features.
    expect([...lexicalTerms('what is it')].map(([t]) => t)).toEqual(['what', 'is', 'it']);
    expect(lexicalTerms('').size).toBe(0);
  });

  it('is unit-length, deterministic, and its dot product is the cosine of sublinear term frequencies', () => {
    const a = lexicalVector('Ada painted a sunset; painting calms Ada', 1024);
    expect(Math.sqrt(dot(a, a))).toBeCloseTo(1, 6);
    expect([...lexicalVector('Ada painted a sunset; painting calms Ada', 1024)]).toEqual([...a]);
    // stems {ada: 2, paint: 2, sunset: 1, calm: 1} vs {paint: 1}: (1 + ln 2) / |(1+ln2, 1+ln2, 1, 1)|.
    const w = 1 + Math.log(2);
    const expected = w / Math.sqrt(2 * w * w + 2);
    expect(dot(a, lexicalVector('paints', 1024))).toBeCloseTo(expected, 5);
    expect(dot(a, lexicalVector('the weather in Lisbon', 1024))).toBeCloseTo(0, 6);
    expect([...lexicalVector('', 64)].every((x) => x === 0)).toBe(true);
  });
});

/** A fake base model: a fixed unit vector per text, so the combination is checked exactly. */
class FixedBase implements Embedder {
  readonly model = 'fixed-base';
  dimension = 16;
  inits = 0;
  closed = 0;
  async init(): Promise<void> {
    this.inits++;
  }
  async close(): Promise<void> {
    this.closed++;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const v = new Float32Array(16);
      v[t.length % 16] = 1;
      return v;
    });
  }
}

describe('LexicalAugmentedEmbedder', () => {
  it('concatenates the scaled parts so that the cosine is (1 - s) base + s lexical', async () => {
    const base = new HashingEmbedder(64);
    const e = new LexicalAugmentedEmbedder(base, { lexicalDimension: 256, lexicalShare: 0.3 });
    expect(e.dimension).toBe(64 + 256);
    const texts = ['Ada moved to Lisbon in May', 'where does Ada live now?', 'a recipe for lemon cake'];
    const [v0, v1, v2] = await e.embed(texts);
    const [b0, b1, b2] = await base.embed(texts);
    for (const [v, b] of [
      [v0!, b0!],
      [v1!, b1!],
    ] as const) {
      expect(v.length).toBe(320);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
      expect([...v.subarray(0, 64)].map((x) => +x.toFixed(5))).toEqual([...b].map((x) => +(Math.sqrt(0.7) * x).toFixed(5)));
      expect(Math.sqrt(dot(v.subarray(64), v.subarray(64)))).toBeCloseTo(Math.sqrt(0.3), 5);
    }
    const lex = (t: string) => lexicalVector(t, 256);
    expect(dot(v0!, v1!)).toBeCloseTo(0.7 * dot(b0!, b1!) + 0.3 * dot(lex(texts[0]!), lex(texts[1]!)), 5);
    expect(dot(v0!, v2!)).toBeCloseTo(0.7 * dot(b0!, b2!), 5);
  });

  it('names its model by base, lexical dimension, share and version, and validates its options', async () => {
    const base = new FixedBase();
    const e = new LexicalAugmentedEmbedder(base, { lexicalDimension: 32, lexicalShare: 0.25 });
    expect(e.model).toBe('fixed-base+lex-porter-h32-s0.25-v1');
    expect(new LexicalAugmentedEmbedder(base, { lexicalDimension: 32, lexicalShare: 0.5 }).model).not.toBe(e.model);
    await e.init();
    expect(base.inits).toBe(1);
    await e.close();
    expect(base.closed).toBe(1);
    expect(await e.embed([])).toEqual([]);
    expect(() => new LexicalAugmentedEmbedder(base, { lexicalDimension: 100 })).toThrow(/multiple of 16/);
    expect(() => new LexicalAugmentedEmbedder(base, { lexicalShare: 1.5 })).toThrow(/share/);
  });

  it('reports dimension 0 while its base has not discovered its own', () => {
    const base = new FixedBase();
    base.dimension = 0;
    const e = new LexicalAugmentedEmbedder(base, { lexicalDimension: 32 });
    expect(e.dimension).toBe(0);
    base.dimension = 16;
    expect(e.dimension).toBe(48);
  });

  it("ranks a memory sharing the question's stemmed words above one that does not, whatever the base says", async () => {
    // A base with no signal at all (every text the same vector): only the lexical part can rank.
    const flat: Embedder = {
      model: 'flat',
      dimension: 16,
      init: async () => undefined,
      embed: async (texts) => texts.map(() => Float32Array.from({ length: 16 }, (_, i) => (i === 0 ? 1 : 0))),
    };
    const e = new LexicalAugmentedEmbedder(flat, { lexicalDimension: 512 });
    const [q, hit, miss] = await e.embed([
      'When did Ada go camping?',
      'Ada: we went on a camping trip in June',
      'Ada: I baked bread yesterday',
    ]);
    expect(dot(q!, hit!)).toBeGreaterThan(dot(q!, miss!));
  });
});
