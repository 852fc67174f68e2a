import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../adapters/embeddings/index.js';
import { tenantWithKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

// The other e2e suites serve the `hash` embedder for speed; this smoke path runs what a fresh install
// serves: the configuration's default embedder (`local`), through write, consolidation and search.

let server: TestServer;
let call: ReturnType<typeof withKey>;
let key: string;

const corpus = [
  'Erin is learning to play the cello with a teacher from Vienna.',
  'Bob is training for the Berlin marathon in September.',
  'Dan bakes sourdough bread every Sunday morning.',
];

beforeAll(async () => {
  server = await startTestServer({ EMBEDDINGS_PROVIDER: undefined });
  ({ key } = await tenantWithKey(server.url));
  call = withKey(server.url, key);
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe('default embedder (local) end to end', () => {
  it('serves the default local model', () => {
    expect(server.services.embedder.model).toBe(createEmbedder({ provider: 'local' }).model);
  });

  it('writes, consolidates and finds a memory in every search mode', async () => {
    const ids: string[] = [];
    for (const content of corpus) {
      const res = await call('POST', '/memories', { body: { content } });
      expect(res.status).toBe(202);
      ids.push(res.body.memory_id as string);
    }
    await waitConsolidated(server.url, key, 60_000);
    for (const mode of ['vector-only', 'hybrid', 'hybrid+graph']) {
      const res = await call(
        'GET',
        `/memories/search?q=${encodeURIComponent('cello lessons with a teacher')}&mode=${encodeURIComponent(mode)}`,
      );
      expect(res.status, mode).toBe(200);
      expect(res.body.results[0]?.memory_id, mode).toBe(ids[0]);
    }
  });
});
