import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { QdrantClient } from '@qdrant/js-client-rest';
import { describe, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { createQdrantSearchIndex } from '../../adapters/qdrant/search-index.js';
import { QdrantEmulator } from '../support/qdrant-emulator.js';
import { describeSearchIndexContract, describeSearchIndexParity, type SearchIndexFixture } from './search-index.contract.js';

function embeddedFixture(): SearchIndexFixture {
  const dir = mkdtempSync(path.join(tmpdir(), 'search-contract-'));
  const open: EmbeddedDatabase[] = [];
  return {
    async open(info, tuning = {}) {
      const db = openEmbeddedDatabase(dir);
      open.push(db);
      try {
        return new EmbeddedSearchIndex(db, info, tuning);
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
}

describeSearchIndexContract('embedded (libsql)', embeddedFixture);

/**
 * The Qdrant adapter against the in-process emulator of the Query API semantics it relies on
 * (test/support/qdrant-emulator.ts): runs everywhere, so the adapter's whole search path is exercised
 * here; the real server run below is what proves it against Qdrant itself.
 */
function emulatedQdrantFixture(): SearchIndexFixture {
  const emulator = new QdrantEmulator();
  const url = emulator.start();
  return {
    async open(info, tuning = {}) {
      return createQdrantSearchIndex({
        url: await url,
        collection: 'contract',
        embedder: { model: info.model, dimension: info.dimension, init: async () => {} },
        ...tuning,
      });
    },
    async cleanup() {
      await emulator.stop();
    },
  };
}

describeSearchIndexContract('qdrant (emulated)', emulatedQdrantFixture);
describeSearchIndexParity('embedded and qdrant (emulated)', embeddedFixture, emulatedQdrantFixture);

/**
 * The search index contract against a real Qdrant (`QDRANT_URL`, optional `QDRANT_API_KEY`), e.g.
 * `docker compose up qdrant` then `QDRANT_URL=http://localhost:6333 npx vitest run test/contract`.
 * Each test gets its own collection, dropped afterwards.
 */
const url = process.env.QDRANT_URL;
const apiKey = process.env.QDRANT_API_KEY || undefined;

if (url) {
  const qdrantFixture = (): SearchIndexFixture => {
    const collection = `tm_contract_${randomBytes(6).toString('hex')}`;
    const client = new QdrantClient({ url, apiKey, checkCompatibility: false });
    return {
      async open(info, tuning = {}) {
        return createQdrantSearchIndex({
          client,
          collection,
          embedder: { model: info.model, dimension: info.dimension, init: async () => {} },
          ...tuning,
        });
      },
      async cleanup() {
        if ((await client.collectionExists(collection)).exists) await client.deleteCollection(collection);
      },
    };
  };
  describeSearchIndexContract('qdrant', qdrantFixture);
  describeSearchIndexParity('embedded and qdrant', embeddedFixture, qdrantFixture);
} else {
  describe('SearchIndex contract: qdrant (server profile)', () => {
    it.skip('skipped: QDRANT_URL is not set (no Qdrant server reachable; run `docker compose up qdrant` and set QDRANT_URL)', () => {});
  });
}
