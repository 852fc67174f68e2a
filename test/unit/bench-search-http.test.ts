import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare } from '../../bench/search-http/figures.js';
import { LoadGenerator, searchPath } from '../../bench/search-http/load-generator.js';

// The search bench's load generator runs in a worker thread (bench/search-http/load-worker.ts): these
// tests drive it against a stub search endpoint so the thread's code is exercised, not only type-checked.
describe('search bench load generator', () => {
  let server: Server;
  let port: number;
  const seen: { url: string; key: string | undefined }[] = [];
  let gen: LoadGenerator;

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', key: req.headers['x-api-key'] as string | undefined });
      if (req.url?.includes('fail')) {
        res.writeHead(500).end('stub failure');
        return;
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ results: [{ memory_id: `m-${req.url}` }, { memory_id: 'm-2' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    gen = new LoadGenerator();
  });

  afterAll(async () => {
    await gen.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the warm-up paths untimed, then answers the timed paths in order with their result ids', async () => {
    seen.length = 0;
    const r = await gen.run(port, 'key-1', ['/a', '/fail', '/c'], ['/w1', '/w2'], 2);
    expect(r.status).toEqual([200, 500, 200]);
    expect(r.ids).toEqual([['m-/a', 'm-2'], 'stub failure', ['m-/c', 'm-2']]);
    expect(r.lat).toHaveLength(3);
    expect(seen.map((s) => s.url).sort()).toEqual(['/a', '/c', '/fail', '/w1', '/w2']);
    expect(new Set(seen.map((s) => s.key))).toEqual(new Set(['key-1']));
  });

  it('refuses a second pass while one is running', async () => {
    const first = gen.run(port, 'k', ['/a'], [], 1);
    await expect(gen.run(port, 'k', ['/b'], [], 1)).rejects.toThrow('already running');
    await first;
  });

  it('builds the search path with every parameter encoded', () => {
    expect(searchPath('a b&c', 'hybrid+graph')).toBe('/memories/search?q=a%20b%26c&mode=hybrid%2Bgraph&k=10');
  });
});

describe('compare (result lists of two runs)', () => {
  it.each([
    { a: [['x', 'y']], b: [['x', 'y']], identical: 1, overlap: 1 },
    { a: [['x', 'y']], b: [['y', 'x']], identical: 0, overlap: 1 },
    { a: [['x', 'y']], b: [['x', 'z']], identical: 0, overlap: 0.5 },
    { a: [[]], b: [[]], identical: 1, overlap: 1 },
    { a: [[]], b: [['x']], identical: 0, overlap: 0 },
  ])('$a vs $b: $identical identical, overlap $overlap', ({ a, b, identical, overlap }) => {
    expect(compare(a, b)).toEqual({ queries: 1, identicalLists: identical, meanOverlap: overlap });
  });
});
