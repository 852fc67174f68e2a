import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * An embedding service that refuses the query and echoes it in its error (as some providers do) must
 * not put the query into the logs: the search logs the failure, and that log line carries only the
 * status (docs/security.md: no bodies, no query strings in logs).
 */
let echo: Server;
let server: TestServer;
let secret: string;
const query = 'whereabouts of the witness 5c1e';

beforeAll(async () => {
  echo = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      // The start-up probe (discovering the dimension) is answered; everything else is refused, echoed.
      if (input.length === 1 && input[0] === 'dimension probe') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ index: 0, embedding: [1, 0, 0, 0] }] }));
        return;
      }
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `input rejected: ${input.join(' ')}` } }));
    });
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  server = await startTestServer({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: 'echo' });
  const owner = await signUp(server.url);
  const created = await http(server.url, 'POST', '/api-keys', {
    headers: bearer(owner.accessToken),
    body: { name: 'search', scopes: ['memories:read'] },
  });
  expect(created.status).toBe(201);
  secret = created.body.secret;
});
afterAll(async () => {
  await server?.close();
  await new Promise<void>((r) => echo?.close(() => r()));
});

describe('a failing embedding service that echoes the query', () => {
  it('hybrid search answers without the dense channel and logs the failure without the query text', async () => {
    const res = await http(server.url, 'GET', `/memories/search?q=${encodeURIComponent(query)}`, { headers: { 'x-api-key': secret } });
    expect(res.status, res.text).toBe(200);
    const failures = server.logs.filter((l) => l.includes('query embedding failed'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('embedding service answered 400');
    expect(server.logs.filter((l) => l.includes('witness'))).toEqual([]);
  });

  it('vector-only search answers 503 and neither its body nor the logs hold the query text', async () => {
    const res = await http(server.url, 'GET', `/memories/search?mode=vector-only&q=${encodeURIComponent(query)}`, {
      headers: { 'x-api-key': secret },
    });
    expect(res.status).toBe(503);
    expect(res.text).not.toContain('witness');
    expect(server.logs.filter((l) => l.includes('witness'))).toEqual([]);
  });
});
