import type { Migration } from './migration.js';

/**
 * The memory aggregate of the embedded profile (see server/ports/memories.ts and write-queue.ts).
 *
 * - `memories`: one row per memory: the HEAD (last accepted write, `head_version`) and the
 *   CONSOLIDATED state (`committed_version` and what the pipeline derived). JSON columns hold arrays
 *   and objects. `pending_count` > 0 means dirty.
 * - `memory_versions`: every committed version, keyed (memory_id, version) so a version can never be
 *   written twice; deleted with the memory.
 * - `memory_writes`: the durable queue of accepted, not yet consolidated writes. A write is deleted in
 *   the transaction that commits its version (its "applied" mark). UNIQUE (memory_id, version).
 * - `memory_subjects`: subject keys of consolidated active memories, for same-subject candidate lookup.
 * - `idempotency_keys`: per-tenant Idempotency-Key records with the request hash and the result.
 * - `usage_periods`: per-tenant counters per calendar month; `usage_totals`: live memories and bytes.
 * - `memory_settings`: per-tenant memory settings (contradiction policy).
 */
export const memoriesMigration: Migration = {
  id: 10,
  name: 'memories',
  up: `
    CREATE TABLE memories (
      id                   TEXT PRIMARY KEY,
      tenant_id            TEXT NOT NULL,
      namespace            TEXT NOT NULL,
      agent_id             TEXT,
      type                 TEXT NOT NULL CHECK (type IN ('episodic', 'semantic', 'procedural')),
      title                TEXT NOT NULL,
      content              TEXT NOT NULL,
      tags                 TEXT NOT NULL,
      metadata             TEXT NOT NULL,
      writer_sensitivity   TEXT CHECK (writer_sensitivity IN ('low', 'medium', 'high')),
      sensitivity          TEXT NOT NULL CHECK (sensitivity IN ('low', 'medium', 'high')),
      sensitivity_reasons  TEXT NOT NULL DEFAULT '[]',
      status               TEXT NOT NULL CHECK (status IN ('active', 'archived', 'superseded')),
      head_version         INTEGER NOT NULL,
      committed_version    INTEGER NOT NULL DEFAULT 0,
      pending_count        INTEGER NOT NULL,
      contradiction_status TEXT NOT NULL DEFAULT 'clear' CHECK (contradiction_status IN ('clear', 'flagged', 'resolved')),
      contradiction_policy TEXT,
      conflicts_with       TEXT NOT NULL DEFAULT '[]',
      superseded_by        TEXT,
      merged_into          TEXT,
      injection_flagged    INTEGER NOT NULL DEFAULT 0,
      injection_score      REAL NOT NULL DEFAULT 0,
      injection_patterns   TEXT NOT NULL DEFAULT '[]',
      quality              REAL NOT NULL DEFAULT 0,
      fingerprint          TEXT,
      size_bytes           INTEGER NOT NULL,
      created_at           TEXT NOT NULL,
      updated_at           TEXT NOT NULL,
      committed_at         TEXT
    );
    CREATE INDEX memories_tenant_created ON memories (tenant_id, created_at DESC, id DESC);
    CREATE INDEX memories_fingerprint ON memories (tenant_id, namespace, fingerprint) WHERE fingerprint IS NOT NULL;
    CREATE INDEX memories_merged ON memories (tenant_id, merged_into) WHERE merged_into IS NOT NULL;

    CREATE TABLE memory_versions (
      memory_id      TEXT NOT NULL,
      version        INTEGER NOT NULL,
      tenant_id      TEXT NOT NULL,
      change         TEXT NOT NULL CHECK (change IN ('create', 'update', 'rollback', 'supersede')),
      title          TEXT NOT NULL,
      content        TEXT NOT NULL,
      tags           TEXT NOT NULL,
      type           TEXT NOT NULL,
      agent_id       TEXT,
      metadata       TEXT NOT NULL,
      sensitivity    TEXT NOT NULL,
      status         TEXT NOT NULL,
      rolled_back_to INTEGER,
      created_at     TEXT NOT NULL,
      PRIMARY KEY (memory_id, version)
    ) WITHOUT ROWID;

    CREATE TABLE memory_writes (
      id             INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id      TEXT NOT NULL,
      memory_id      TEXT NOT NULL,
      namespace      TEXT NOT NULL,
      version        INTEGER NOT NULL,
      kind           TEXT NOT NULL CHECK (kind IN ('create', 'update', 'rollback')),
      content        TEXT NOT NULL,
      rolled_back_to INTEGER,
      accepted_at    TEXT NOT NULL,
      UNIQUE (memory_id, version)
    );
    CREATE INDEX memory_writes_tenant ON memory_writes (tenant_id, id);

    CREATE TABLE memory_subjects (
      tenant_id TEXT NOT NULL,
      namespace TEXT NOT NULL,
      subject   TEXT NOT NULL,
      memory_id TEXT NOT NULL,
      PRIMARY KEY (tenant_id, namespace, subject, memory_id)
    ) WITHOUT ROWID;
    CREATE INDEX memory_subjects_memory ON memory_subjects (memory_id);

    CREATE TABLE idempotency_keys (
      tenant_id    TEXT NOT NULL,
      key          TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      response     TEXT NOT NULL,
      created_at   TEXT NOT NULL,
      expires_at   TEXT NOT NULL,
      PRIMARY KEY (tenant_id, key)
    ) WITHOUT ROWID;
    CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

    CREATE TABLE usage_periods (
      tenant_id TEXT NOT NULL,
      period    TEXT NOT NULL,
      writes    INTEGER NOT NULL DEFAULT 0,
      reads     INTEGER NOT NULL DEFAULT 0,
      searches  INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant_id, period)
    ) WITHOUT ROWID;

    CREATE TABLE usage_totals (
      tenant_id     TEXT PRIMARY KEY,
      memory_count  INTEGER NOT NULL DEFAULT 0,
      storage_bytes INTEGER NOT NULL DEFAULT 0
    );

    CREATE TABLE memory_settings (
      tenant_id            TEXT PRIMARY KEY,
      contradiction_policy TEXT NOT NULL CHECK (contradiction_policy IN ('NEWER_WINS', 'FLAG')),
      updated_at           TEXT NOT NULL
    );
  `,
};
