import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import { describe, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { createQdrantSearchIndex } from '../../adapters/qdrant/search-index.js';
import { describeSearchIndexContract } from './search-index.contract.js';

describeSearchIndexContract('embedded (libsql)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'search-contract-'));
  const open: EmbeddedDatabase[] = [];
  return {
    async open(info) {
      const db = openEmbeddedDatabase(dir);
      open.push(db);
      try {
        return new EmbeddedSearchIndex(db, info);
      } catch (err) {
        db.close();
        throw err;
      }
    },
    async cleanup() {
      for (const db of open) if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

/**
 * The search index contract against a real Qdrant (`QDRANT_URL`, optional `QDRANT_API_KEY`), e.g.
 * `docker compose up qdrant` then `QDRANT_URL=http://localhost:6333 npx vitest run test/contract`.
 * Each test gets its own collection, dropped afterwards.
 */
const url = process.env.QDRANT_URL;
const apiKey = process.env.QDRANT_API_KEY || undefined;

if (url) {
  describeSearchIndexContract('qdrant', () => {
    const collection = `tm_contract_${randomBytes(6).toString('hex')}`;
    const client = new QdrantClient({ url, apiKey, checkCompatibility: false });
    return {
      async open(info) {
        return createQdrantSearchIndex({
          client,
          collection,
          embedder: { model: info.model, dimension: info.dimension, init: async () => {} },
        });
      },
      async cleanup() {
        if ((await client.collectionExists(collection)).exists) await client.deleteCollection(collection);
      },
    };
  });
} else {
  describe('SearchIndex contract: qdrant (server profile)', () => {
    it.skip('skipped: QDRANT_URL is not set (no Qdrant server reachable; run `docker compose up qdrant` and set QDRANT_URL)', () => {});
  });
}
