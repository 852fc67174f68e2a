import type { Migration } from './migration.js';

/**
 * The Knowledge API's tables (see server/ports/knowledge.ts). Field values, schemas and the log's values
 * are JSON text. Every index serves one query of the port, so a list page is one index range:
 *
 * - `knowledge_structures`: published structure versions, unique per (tenant, type, version).
 * - `knowledge_objects`: one row per object; `revision` is the optimistic-concurrency counter and
 *   `size_bytes` what the object adds to `usage_totals.storage_bytes`. The list indexes hold the two
 *   list orders, (created_at, id) and (completeness, created_at, id), with and without the status filter.
 * - `knowledge_object_counts`: live objects per (tenant, type, status, score), moved in each write's
 *   transaction (`countMoves`), so a list's `total` sums a few rows instead of counting every object.
 * - `knowledge_enrichment_log`: append-only; `seq` is the entry's place in the batch it was appended
 *   with, so entries of one run stamped with the same time read back in the order the run wrote them.
 */
export const knowledgeMigration: Migration = {
  id: 50,
  name: 'knowledge',
  up: `
    CREATE TABLE knowledge_structures (
      id           TEXT PRIMARY KEY,
      tenant_id    TEXT NOT NULL,
      type         TEXT NOT NULL,
      version      TEXT NOT NULL,
      status       TEXT NOT NULL CHECK (status IN ('DRAFT', 'ACTIVE', 'DEPRECATED')),
      schema       TEXT NOT NULL,
      created_at   TEXT NOT NULL,
      activated_at TEXT,
      UNIQUE (tenant_id, type, version)
    );

    CREATE TABLE knowledge_objects (
      id                TEXT PRIMARY KEY,
      tenant_id         TEXT NOT NULL,
      type              TEXT NOT NULL,
      structure_id      TEXT NOT NULL,
      schema_version    TEXT NOT NULL,
      status            TEXT NOT NULL CHECK (status IN ('INCOMPLETE', 'ENRICHING', 'PARTIALLY_COMPLETE', 'COMPLETE')),
      completeness      REAL NOT NULL,
      do_not_enrich     INTEGER NOT NULL,
      fields            TEXT NOT NULL,
      identity_key      TEXT NOT NULL,
      enriched_at       TEXT,
      enrichment_run_id TEXT,
      enrichment_since  TEXT,
      size_bytes        INTEGER NOT NULL,
      revision          INTEGER NOT NULL,
      created_at        TEXT NOT NULL,
      updated_at        TEXT NOT NULL
    );
    CREATE INDEX knowledge_objects_created ON knowledge_objects (tenant_id, type, created_at, id);
    CREATE INDEX knowledge_objects_completeness ON knowledge_objects (tenant_id, type, completeness, created_at, id);
    CREATE INDEX knowledge_objects_status_created ON knowledge_objects (tenant_id, type, status, created_at, id);
    CREATE INDEX knowledge_objects_status_completeness ON knowledge_objects (tenant_id, type, status, completeness, created_at, id);
    CREATE INDEX knowledge_objects_identity ON knowledge_objects (tenant_id, type, identity_key, created_at, id);
    CREATE INDEX knowledge_objects_version ON knowledge_objects (tenant_id, type, schema_version);
    CREATE INDEX knowledge_objects_type_id ON knowledge_objects (tenant_id, type, id);

    CREATE TABLE knowledge_object_counts (
      tenant_id    TEXT NOT NULL,
      type         TEXT NOT NULL,
      status       TEXT NOT NULL,
      completeness REAL NOT NULL,
      n            INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, type, status, completeness)
    ) WITHOUT ROWID;

    CREATE TABLE knowledge_enrichment_log (
      id              TEXT PRIMARY KEY,
      tenant_id       TEXT NOT NULL,
      object_id       TEXT NOT NULL,
      run_id          TEXT NOT NULL,
      engine          TEXT NOT NULL,
      field           TEXT NOT NULL,
      strategy        TEXT NOT NULL,
      candidate_value TEXT,
      confidence      REAL,
      outcome         TEXT NOT NULL,
      source_refs     TEXT NOT NULL,
      previous_value  TEXT,
      created_at      TEXT NOT NULL,
      seq             INTEGER NOT NULL
    );
    CREATE INDEX knowledge_enrichment_log_object ON knowledge_enrichment_log (tenant_id, object_id, created_at, seq, id);
  `,
};
