import type { Migration } from './migration.js';

/**
 * `search_docs.terms`: each document's keyword terms counted per column (`server/text/term-counts.ts`), from
 * which a process holds a tenant's keyword index in memory. Documents indexed before this step have none
 * until they are written again (or `tenant-memory reindex` runs); until then their tenant's keyword
 * channel is answered by its FTS5 table, which gives the same ranking.
 */
export const searchTermsMigration: Migration = {
  id: 31,
  name: 'search_terms',
  up: 'ALTER TABLE search_docs ADD COLUMN terms TEXT',
};
