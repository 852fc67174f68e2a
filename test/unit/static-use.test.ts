import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEmbedder, LexicalAugmentedEmbedder, StaticUseEmbedder } from '../../adapters/embeddings/index.js';
import { encodeTokensAlone, loadEncoder } from '../../scripts/static-distillation.js';
import { decodeStaticTable, encodeStaticTable, vocabularyHash } from '../../adapters/embeddings/static-table.js';
import { encodePieces } from '../../adapters/embeddings/sentencepiece.js';
import { loadStaticUse, STATIC_USE_TABLE_PATH } from '../../adapters/embeddings/static-use.js';

const cosine = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  order.forEach(([, i], rank) => (r[i] = rank));
  return r;
}

function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  let d2 = 0;
  for (let i = 0; i < n; i++) d2 += (ra[i]! - rb[i]!) ** 2;
  return 1 - (6 * d2) / (n * (n * n - 1));
}

describe('static embedding table format', () => {
  it('round-trips a table and its vocabulary hash within int8 precision, and refuses foreign or truncated bytes', () => {
    const values = Float32Array.from({ length: 3 * 5 }, (_, i) => Math.sin(i) * (i % 3 === 0 ? 0.01 : 1));
    values.fill(0, 10, 15); // an all-zero row keeps a zero scale
    const hash = vocabularyHash([
      ['a', -1],
      ['b', null],
      ['c', -2],
    ]);
    const table = { tokens: 3, dimension: 5, vocabularyHash: hash, values };
    const back = decodeStaticTable(encodeStaticTable(table));
    expect(back.tokens).toBe(3);
    expect(back.dimension).toBe(5);
    expect(back.vocabularyHash).toBe(hash);
    for (let i = 0; i < values.length; i++) expect(back.values[i]).toBeCloseTo(values[i]!, 2);
    expect(Array.from(back.values.subarray(10))).toEqual([0, 0, 0, 0, 0]);
    expect(() => decodeStaticTable(new Uint8Array(80))).toThrow(/not a static embedding table/);
    expect(() => decodeStaticTable(encodeStaticTable(table).subarray(0, 70))).toThrow(/truncated/);
  });
});

describe('StaticUseEmbedder (Universal Sentence Encoder lite distilled to token vectors)', () => {
  const e = new StaticUseEmbedder();

  it('gives unit vectors, the same synchronously and in batches, and paraphrases closer than unrelated texts', async () => {
    const texts = ['I adopted a puppy last week', 'We got a new dog recently', 'The quarterly tax report is due on Friday'];
    const [a, b, c] = await e.embed(texts);
    expect(a!.length).toBe(256);
    for (const v of [a!, b!, c!]) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    expect(Array.from(e.embedOne(texts[0]!))).toEqual(Array.from(a!));
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.1);
    expect(cosine(b!, c!)).toBeLessThan(cosine(a!, b!));
  });

  it('segments text into exactly the ids of the library tokenizer, in linear time', () => {
    const { tokenizer } = loadStaticUse();
    const texts = [
      'Alice lives in Paris',
      '  leading and trailing spaces  ',
      'two  spaces,\ttabs\nand newlines',
      'naïve café — ﬁnance\u00a0(NBSP and a ligature NFKC rewrites)',
      'emoji 🙂🙂 and 中文 and Ünïcödé',
      '[2023-05-09 14:17] Emma: I went to a woodworking class yesterday and it was so calming.',
      // Pieces without a score (":", ":)", "://") win only after the start of a text in the library.
      'Thanks :) see you',
      'sad :( today',
      'Note : bring the keys',
      'see https://example.com/a:b',
      'well w........',
      '',
      ' ',
    ];
    // And a fixed pseudo-random set over letters, punctuation, spaces, emoticon parts and non-Latin text.
    const alphabet = [...'abcdeilnorstuAEIT  ..,,::;()-!?/\'"1203😀é中\u00a0\n'];
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 3000; i++) {
      const length = 1 + Math.floor(random() * 40);
      texts.push(Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
    }
    for (const t of texts) expect(encodePieces(tokenizer, t), JSON.stringify(t)).toEqual(tokenizer.encode(t));
  });

  it('is the default local model, beside the lexical features, named after its table', () => {
    const local = createEmbedder({ provider: 'local' });
    expect(local.model).toMatch(/^use-lite-static-v1-256-[0-9a-f]{8}\+lex-porter-h1024-s0\.70-v1$/);
    expect(local).toBeInstanceOf(LexicalAugmentedEmbedder);
    expect((local as LexicalAugmentedEmbedder).base).toBeInstanceOf(StaticUseEmbedder);
  });

  it('ships a table derived from the encoder: token similarities follow the full model', { timeout: 60_000 }, async () => {
    const table = decodeStaticTable(readFileSync(STATIC_USE_TABLE_PATH));
    const encoder = await loadEncoder();
    expect(table.tokens).toBe(encoder.tokenizer.vocabulary.length);
    expect(table.vocabularyHash).toBe(vocabularyHash(encoder.tokenizer.vocabulary));
    const words = [
      'dog',
      'cat',
      'puppy',
      'car',
      'truck',
      'paris',
      'london',
      'city',
      'happy',
      'sad',
      'money',
      'bank',
      'doctor',
      'hospital',
      'music',
      'guitar',
      'school',
      'teacher',
      'rain',
      'weather',
    ];
    // Whole-word SentencePiece tokens ("▁dog") of the encoder's vocabulary.
    const vocabulary = encoder.tokenizer.vocabulary as [string, number][];
    const ids = words.map((w) => vocabulary.findIndex(([piece]) => piece === `\u2581${w}`)).filter((id) => id >= 0);
    expect(ids.length).toBeGreaterThanOrEqual(15);
    const full = await encodeTokensAlone(encoder.model, ids);
    const width = full.length / ids.length;
    const fullRow = (i: number) => full.subarray(i * width, (i + 1) * width);
    const tableRow = (i: number) => {
      const v = table.values.slice(ids[i]! * table.dimension, (ids[i]! + 1) * table.dimension);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const fullSims: number[] = [];
    const tableSims: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        fullSims.push(cosine(fullRow(i), fullRow(j)));
        tableSims.push(cosine(tableRow(i), tableRow(j)));
      }
    }
    // Measured 0.81 (the projection drops the shared components); an unrelated table scores near 0.
    expect(spearman(fullSims, tableSims)).toBeGreaterThan(0.7);
  });
});
