import type { Migration } from './migration.js';

/**
 * The search index of the embedded profile (see adapters/embedded/search-index.ts).
 *
 * - `search_docs`: one row per indexed memory with what the filters need. `doc_id` is AUTOINCREMENT so an
 *   id is never reused: the FTS rowid, the vector row and the graph links all key on it.
 * - `search_fts_t<tenant_key>`: one FTS5 table per tenant, created with the tenant's first write (see
 *   `search/rows.ts`): contentless with delete support (the text lives in the memory store), porter
 *   stemming over unicode61 without diacritics. Per tenant, not shared, because FTS5's bm25() takes its
 *   statistics (row count, average length, document frequency) from the whole table: in a shared table a
 *   tenant's ranking would change with other tenants' content (measured), and would leak a little of it.
 * - `search_vectors`: the embedding as an F32_BLOB (raw little-endian float32, the libsql vector format),
 *   readable by `vector_distance_cos`. The model and dimension are recorded in `search_meta`.
 * - `search_changes`: an append-only log of changed doc ids per tenant, from which in-process vector
 *   caches catch up (including changes written by another process). Pruned to a window; a cache older
 *   than `search_meta.changes_floor` reloads.
 * - `search_entities` / `search_mentions` / `search_edges`: the per-tenant entity graph (entity rows,
 *   memory-entity links, co-occurrence counts stored in both directions).
 */
export const searchIndexMigration: Migration = {
  id: 30,
  name: 'search_index',
  up: `
    CREATE TABLE search_meta (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    );
    CREATE TABLE search_tenants (
      tenant_key INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id  TEXT NOT NULL UNIQUE,
      doc_count  INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE search_docs (
      doc_id            INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id         TEXT NOT NULL,
      memory_id         TEXT NOT NULL,
      namespace         TEXT NOT NULL,
      agent_id          TEXT,
      status            TEXT NOT NULL CHECK (status IN ('active', 'archived', 'superseded')),
      injection_flagged INTEGER NOT NULL CHECK (injection_flagged IN (0, 1)),
      quality           REAL NOT NULL,
      created_at        TEXT NOT NULL,
      UNIQUE (tenant_id, memory_id)
    );
    CREATE INDEX search_docs_tenant_created ON search_docs (tenant_id, namespace, created_at);
    CREATE TABLE search_vectors (
      doc_id    INTEGER PRIMARY KEY,
      tenant_id TEXT NOT NULL,
      vector    F32_BLOB NOT NULL
    );
    CREATE INDEX search_vectors_tenant ON search_vectors (tenant_id);
    CREATE TABLE search_changes (
      seq       INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id TEXT NOT NULL,
      doc_id    INTEGER NOT NULL
    );
    CREATE INDEX search_changes_tenant ON search_changes (tenant_id, seq);
    CREATE TABLE search_entities (
      entity_id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id TEXT NOT NULL,
      key       TEXT NOT NULL,
      name      TEXT NOT NULL,
      type      TEXT NOT NULL,
      doc_count INTEGER NOT NULL DEFAULT 0,
      UNIQUE (tenant_id, key)
    );
    CREATE TABLE search_mentions (
      entity_id INTEGER NOT NULL,
      doc_id    INTEGER NOT NULL,
      PRIMARY KEY (entity_id, doc_id)
    ) WITHOUT ROWID;
    CREATE INDEX search_mentions_doc ON search_mentions (doc_id, entity_id);
    CREATE TABLE search_edges (
      a      INTEGER NOT NULL,
      b      INTEGER NOT NULL,
      weight INTEGER NOT NULL,
      PRIMARY KEY (a, b)
    ) WITHOUT ROWID;
  `,
};
