import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
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

// The same suite runs against Qdrant in search-index.qdrant.test.ts when QDRANT_URL is set.
