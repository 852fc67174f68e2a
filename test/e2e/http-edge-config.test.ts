import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantMemoryClient } from '../../client/index.js';
import { createApiKey } from '../support/memory-api.js';
import { signUp } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

const LIMIT = 2048;
const allowed = 'https://app.example.test';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ BODY_LIMIT_BYTES: String(LIMIT), CORS_ORIGINS: `${allowed},https://admin.example.test` });
  key = await createApiKey(server.url, await signUp(server.url));
});
afterAll(async () => {
  await server?.close();
});

/** A memory-create body of exactly `bytes` bytes of JSON. */
function bodyOf(bytes: number): string {
  const empty = JSON.stringify({ content: '' });
  return JSON.stringify({ content: 'a'.repeat(bytes - empty.length) });
}

/** POSTs a body with chunked transfer encoding (no Content-Length for the parser to check first). */
function postChunked(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 500) req.write(body.slice(i, i + 500));
    req.end();
  });
}

describe('BODY_LIMIT_BYTES', () => {
  it('accepts a body at the limit and answers one byte over with 413 and the error body', async () => {
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    expect(Buffer.byteLength(bodyOf(LIMIT))).toBe(LIMIT);
    const atLimit = await http(server.url, 'POST', '/memories', { headers, raw: bodyOf(LIMIT) });
    expect(atLimit.status).toBe(202);
    const readBack = await http(server.url, 'GET', `/memories/${atLimit.body.memory_id}`, { headers });
    expect(readBack.body.content).toBe(JSON.parse(bodyOf(LIMIT)).content);

    for (const path of ['/memories', '/trpc/memories.create']) {
      const over = await http(server.url, 'POST', path, { headers, raw: bodyOf(LIMIT + 1) });
      expect(over.status, path).toBe(413);
      expect(over.body, path).toEqual({
        code: 'PAYLOAD_TOO_LARGE',
        message: expect.any(String),
        request_id: over.headers.get('x-request-id'),
      });
    }
    const chunked = await postChunked('/memories', bodyOf(LIMIT + 1), { 'x-api-key': key });
    expect(chunked).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
  });
});

describe('CORS_ORIGINS', () => {
  const preflight = (origin: string) =>
    http(server.url, 'OPTIONS', '/memories', {
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key,content-type' },
    });

  it('gives an allowed origin the CORS headers on a preflight and on a request', async () => {
    const pre = await preflight(allowed);
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toBe('x-api-key,content-type');

    const res = await http(server.url, 'GET', '/memories', { headers: { origin: allowed, 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-expose-headers')).toBe('X-Request-ID,Retry-After');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('gives any other origin none of them', async () => {
    for (const origin of ['https://evil.example.test', 'https://app.example.test.evil.test', 'null', 'http://app.example.test']) {
      const pre = await preflight(origin);
      const res = await http(server.url, 'GET', '/memories', { headers: { origin, 'x-api-key': key } });
      for (const answer of [pre, res]) {
        expect(
          [...answer.headers.keys()].filter((h) => h.startsWith('access-control-')),
          origin,
        ).toEqual([]);
        expect(answer.headers.get('vary'), origin).toContain('Origin');
      }
      expect(res.status).toBe(200);
    }
  });
});

describe('tRPC batches', () => {
  const batch = (calls: number) =>
    `/trpc/${Array(calls).fill('system.info').join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`;

  it('serves a batch of 100 calls and refuses 101 with 400 and the error body', async () => {
    const ok = await http(server.url, 'GET', batch(100));
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveLength(100);
    const refused = await http(server.url, 'GET', batch(101));
    expect(refused.status).toBe(400);
    const error = Array.isArray(refused.body) ? refused.body[0].error : refused.body.error;
    expect(error.json.data.app).toMatchObject({ code: 'VALIDATION_FAILED', request_id: expect.any(String) });
  });

  it('the typed client splits 250 concurrent calls into batches the server accepts', async () => {
    // Pins the client's copy of the cap (it imports no server code) to the server's.
    const client = createTenantMemoryClient({ url: server.url });
    const answers = await Promise.all(Array.from({ length: 250 }, () => client.system.info.query()));
    expect(answers).toHaveLength(250);
    for (const a of answers) expect(a).toMatchObject({ version: expect.any(String) });
  });
});
