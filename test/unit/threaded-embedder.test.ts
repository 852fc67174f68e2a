import { afterAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../adapters/embeddings/index.js';
import { ThreadedEmbedder } from '../../adapters/embeddings/threaded.js';

const texts = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag} memory number ${i}: Alice moved to Berlin in ${2000 + i}`);

describe('ThreadedEmbedder (the embedder in worker threads)', () => {
  const open: ThreadedEmbedder[] = [];
  afterAll(async () => {
    await Promise.all(open.map((e) => e.close()));
  });
  const threaded = (config: Parameters<typeof createEmbedder>[0], threads = 1) => {
    const e = new ThreadedEmbedder(config, { threads, maxBatch: 16 });
    open.push(e);
    return e;
  };

  it('answers exactly what the same embedder answers on the main thread, in order', async () => {
    const e = threaded({ provider: 'hash', dimension: 64 });
    const local = createEmbedder({ provider: 'hash', dimension: 64 });
    expect([e.model, e.dimension]).toEqual([local.model, local.dimension]);
    const input = texts(5, 'a');
    expect(await e.embed(input)).toEqual(await local.embed(input));
    expect(await e.embed([])).toEqual([]);
  });

  it('coalesces concurrent calls into shared model runs, each caller getting its own vectors', async () => {
    const e = threaded({ provider: 'hash', dimension: 32 });
    const local = createEmbedder({ provider: 'hash', dimension: 32 });
    const calls = Array.from({ length: 12 }, (_, i) => texts(1 + (i % 3), `call${i}`));
    const results = await Promise.all(calls.map((c) => e.embed(c)));
    for (let i = 0; i < calls.length; i++) expect(results[i]).toEqual(await local.embed(calls[i]!));
    expect(e.stats.texts).toBe(calls.flat().length);
    // The first call runs alone; the rest wait for the thread and go in batches of at most 16 texts.
    expect(e.stats.runs).toBeLessThan(calls.length);
    expect(e.stats.runs).toBeGreaterThanOrEqual(1 + Math.ceil((calls.flat().length - calls[0]!.length) / 16));
  });

  it('spreads batches over several threads and passes errors back to the caller', async () => {
    const e = threaded({ provider: 'hash', dimension: 16 }, 2);
    await e.init();
    const out = await Promise.all([e.embed(texts(3, 'x')), e.embed(texts(2, 'y')), e.embed(texts(4, 'z'))]);
    expect(out.map((v) => v.length)).toEqual([3, 2, 4]);
    const broken = threaded({ provider: 'openai', url: 'http://127.0.0.1:9/v1', model: 'none', dimension: 4 });
    await expect(broken.embed(['hello'])).rejects.toThrow();
  });

  it('runs the offline sentence encoder in a thread with the same vectors as in process', { timeout: 120_000 }, async () => {
    const e = threaded({ provider: 'use-lite' });
    const local = createEmbedder({ provider: 'use-lite' });
    const input = ['Alice lives in Paris', 'The deploy window is Tuesday'];
    const [a, b] = [await e.embed(input), await local.embed(input)];
    expect(a.length).toBe(2);
    for (let i = 0; i < 2; i++) for (let d = 0; d < e.dimension; d++) expect(a[i]![d]).toBeCloseTo(b[i]![d]!, 5);
  });
});
