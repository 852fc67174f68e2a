import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashingEmbedder } from '../../adapters/embeddings/hashing.js';
import { signUp } from '../support/auth.js';
import { createApiKey, waitConsolidated } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/** A value no log line could contain by chance. */
const marker = `mk${randomBytes(8).toString('hex')}`;
/** A search for this text makes the embedder fail, so a request carrying the marker ends in a 500. */
const explode = `${marker}boom`;

/** The hashing embedder, except that it fails (as an unreachable embedding service would) on one text. */
class FailingEmbedder extends HashingEmbedder {
  override async embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.some((t) => t.includes(explode))) return texts.map(() => new Float32Array(3));
    return super.embed(texts);
  }
}

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({}, { embedder: new FailingEmbedder() });
  key = await createApiKey(server.url, await signUp(server.url));
});
afterAll(async () => {
  await server?.close();
});

describe('logs on the request path', () => {
  it('never carry a query string or a body, of answered or failed requests', async () => {
    const k = { 'x-api-key': key };
    const q = encodeURIComponent;
    const answers = [
      await http(server.url, 'POST', '/memories', { headers: k, body: { content: `remember ${marker}`, namespace: marker } }),
      await http(server.url, 'GET', `/memories?namespace=${marker}&agent_id=${marker}`, { headers: k }),
      await http(server.url, 'GET', `/memories/search?q=${marker}`, { headers: k }),
      await http(server.url, 'GET', `/memories/search?q=${explode}`, { headers: k }),
      await http(server.url, 'GET', `/trpc/search.memories?input=${q(JSON.stringify({ json: { q: explode } }))}`, { headers: k }),
      await http(server.url, 'POST', '/trpc/memories.create', { headers: k, body: { json: { content: marker, [marker]: 1 } } }),
      await http(server.url, 'POST', '/memories', { headers: k, body: { content: 'x', [marker]: marker } }),
      await http(server.url, 'POST', '/memories', {
        headers: { ...k, 'content-type': 'application/json' },
        raw: `{"content": "${marker}"`,
      }),
      await http(server.url, 'POST', '/memories', { headers: { ...k, 'content-type': 'text/plain' }, raw: marker }),
      // The attempted email is an audit field of a failed login (not this test's concern); the password is body.
      await http(server.url, 'POST', '/auth/login', { body: { email: 'nobody@example.test', password: marker } }),
      await http(server.url, 'GET', `/no-such-route?${marker}=${marker}`),
      await http(server.url, 'GET', `/memories?${marker}=1`),
    ];
    const statuses = answers.map((a) => a.status);
    // The failing cases really failed, two of them inside a procedure (REST and tRPC: the paths that log a stack).
    expect(statuses.filter((s) => s === 500)).toHaveLength(2);
    expect(statuses.filter((s) => s >= 400).length).toBeGreaterThanOrEqual(8);
    // The stored memory has been through the jobs too, so their log lines are in.
    await waitConsolidated(server.url, key);
    // Both failures were logged, by path.
    expect(server.logs.some((l) => l.includes('unhandled error in REST procedure') && l.includes('"path":"/memories/search"'))).toBe(true);
    expect(server.logs.some((l) => l.includes('unhandled error in tRPC procedure') && l.includes('"path":"/trpc/search.memories"'))).toBe(
      true,
    );
    expect(server.logs.filter((l) => l.includes(marker))).toEqual([]);
  });
});
