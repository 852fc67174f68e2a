import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientOf, qdrantClientParams } from '../../adapters/qdrant/client.js';
import { guarded } from '../../adapters/qdrant/errors.js';
import { createQdrantSearchIndex, resetQdrantSearchIndex } from '../../adapters/qdrant/search-index.js';
import { AppError } from '../../server/errors.js';
import { SearchIndexConfigurationError } from '../../server/ports/search-index.js';

/**
 * How the adapter reaches Qdrant and reads its failures, with the real @qdrant/js-client-rest talking
 * HTTP to a local stand-in (no Qdrant runs here): the address it derives from QDRANT_URL, which 404s
 * count as an outage, and the reset's own budget for dropping the collection.
 */

const DIM = 4;
const embedder = { model: 'test-model', dimension: DIM, init: async () => {} };

interface Reply {
  status?: number;
  body?: unknown;
  /** Raw text instead of JSON (a proxy's page, an empty 404). */
  text?: string;
  delayMs?: number;
}

let server: Server | null = null;
const requests: { method: string; path: string; query: URLSearchParams }[] = [];

async function serve(reply: (method: string, path: string) => Reply): Promise<string> {
  requests.length = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams });
      const r = reply(req.method ?? '', url.pathname);
      setTimeout(() => {
        if (res.destroyed) return;
        if (r.text !== undefined) {
          res.writeHead(r.status ?? 200, { 'content-type': 'text/html' });
          res.end(r.text);
          return;
        }
        res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(r.body ?? { result: null, status: 'ok', time: 0 }));
      }, r.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  vi.unstubAllGlobals();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

const ok = (result: unknown): Reply => ({ body: { result, status: 'ok', time: 0 } });
const qdrantError = (status: number, error: string): Reply => ({ status, body: { status: { error }, time: 0 } });

describe('QDRANT_URL', () => {
  it.each([
    ['https://qdrant.example.com', { url: 'https://qdrant.example.com', port: 443 }],
    ['https://qdrant.example.com:443', { url: 'https://qdrant.example.com', port: 443 }],
    ['http://qdrant.internal', { url: 'http://qdrant.internal', port: 80 }],
    ['http://qdrant:6333', { url: 'http://qdrant:6333', port: 6333 }],
    ['https://abc.cloud.qdrant.io:6333/', { url: 'https://abc.cloud.qdrant.io:6333', port: 6333 }],
    ['https://proxy.example.com/qdrant/', { url: 'https://proxy.example.com', port: 443, prefix: '/qdrant' }],
    ['http://[::1]', { url: 'http://[::1]', port: 80 }],
  ])('%s', (url, expected) => {
    expect(qdrantClientParams(url, undefined, 1000)).toEqual({ ...expected, timeout: 1000, checkCompatibility: false });
  });

  it('refuses a scheme other than http and https', () => {
    expect(() => qdrantClientParams('ftp://qdrant', undefined, 1000)).toThrow(/http or https/);
  });

  it.each([
    ['https://qdrant.example.com', 'https://qdrant.example.com/'],
    ['http://qdrant.internal', 'http://qdrant.internal/'],
    ['http://qdrant:6333', 'http://qdrant:6333/'],
    ['https://proxy.example.com/qdrant', 'https://proxy.example.com/qdrant/'],
  ])('the client sends the requests for %s to %s', async (configured, first) => {
    const sent: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      sent.push(new URL(url).href);
      throw new TypeError('fetch failed');
    });
    await expect(createQdrantSearchIndex({ url: configured, collection: 'mem', embedder })).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
    expect(sent[0]).toBe(first);
  });
});

describe('Qdrant failures', () => {
  const cases: [string, Reply, 'unavailable' | 'fault' | 'configuration'][] = [
    ['a missing collection (404)', qdrantError(404, "Not found: Collection `mem` doesn't exist!"), 'unavailable'],
    ['a missing point (404)', qdrantError(404, 'Not found: No point with id 7 found'), 'unavailable'],
    ['a 404 without a body: no such endpoint', { status: 404, text: '' }, 'configuration'],
    ["a proxy's 404 page", { status: 404, text: '<html><body>404 Not Found</body></html>' }, 'configuration'],
    ['5xx', qdrantError(503, 'Service internal error: overloaded'), 'unavailable'],
    ['a gateway page (502)', { status: 502, text: '<html>Bad Gateway</html>' }, 'unavailable'],
    ['429', qdrantError(429, 'Rate limiting exceeded: too many requests'), 'unavailable'],
    ['a request bug (400)', qdrantError(400, 'Bad request: wrong field'), 'fault'],
    ['a refused API key (403)', qdrantError(403, 'Forbidden: invalid api key'), 'configuration'],
    ['a missing API key (401)', { status: 401, text: 'Must provide an API key or an Authorization bearer token' }, 'configuration'],
    ["a proxy's size limit (413)", { status: 413, text: '<html>413 Request Entity Too Large</html>' }, 'configuration'],
  ];
  it.each(cases)('%s', async (_name, reply, expected) => {
    const url = await serve(() => reply);
    const err = await guarded('search', () => clientOf({ url, timeoutMs: 2000 }).getCollection('mem')).catch((e: unknown) => e);
    if (expected === 'unavailable') {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('DEPENDENCY_UNAVAILABLE');
    } else {
      // Not 503, but a fault of the deployment (every write fails alike) is told apart from a bad request.
      expect(err).not.toBeInstanceOf(AppError);
      expect(err).toBeInstanceOf(Error);
      expect(err instanceof SearchIndexConfigurationError).toBe(expected === 'configuration');
    }
  });

  it('stops start-up with a message naming QDRANT_URL when the address serves no Qdrant API there', async () => {
    const url = await serve(() => ({ status: 404, text: '' }));
    const err = await createQdrantSearchIndex({ url: `${url}/wrong`, collection: 'mem', embedder }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(AppError);
    expect((err as Error).message).toMatch(/QDRANT_URL/);
    expect(requests[0]!.path).toBe('/wrong/');
  });
});

describe('reset', () => {
  it('gives dropping the collection a budget of its own, beyond the per-request timeout', async () => {
    let exists = true;
    let meta: unknown = null;
    const url = await serve((method, path) => {
      const p = path.replace(/^\/collections\/mem/, '/c');
      if (path === '/') return { body: { title: 'qdrant', version: '1.17.0' } };
      if (p === '/c/exists') return ok({ exists });
      if (p === '/c' && method === 'DELETE') {
        exists = false;
        return { ...ok(true), delayMs: 600 }; // a large collection takes a while to drop
      }
      if (p === '/c' && method === 'PUT') {
        exists = true;
        return ok(true);
      }
      if (p === '/c' && method === 'GET') {
        return ok({
          status: 'green',
          config: { params: { vectors: { dense: { size: DIM, distance: 'Cosine' } }, sparse_vectors: { text: {}, entities: {} } } },
          payload_schema: {},
        });
      }
      if (p === '/c/index') return ok({ operation_id: 1, status: 'completed' });
      if (p === '/c/points' && method === 'POST') return ok(meta ? [{ id: 'meta', payload: meta }] : []);
      if (p === '/c/points' && method === 'PUT') {
        meta = { kind: 'meta', embedding_model: embedder.model, embedding_dimension: DIM, layout_version: 1 };
        return ok({ operation_id: 2, status: 'completed' });
      }
      return qdrantError(404, `unexpected ${method} ${path}`);
    });
    const index = await resetQdrantSearchIndex({ url, collection: 'mem', embedder, timeoutMs: 200, dropTimeoutMs: 60_000 });
    expect(index.reindexIncomplete()).toBe(true);
    const drop = requests.find((r) => r.method === 'DELETE')!;
    // Qdrant is told to wait as long, instead of its own 10 s for a collection operation.
    expect(drop.query.get('timeout')).toBe('60');
  });
});
