import type { Migration } from './migration.js';

/**
 * API keys. Secrets are never stored: `secret_hash` is the SHA-256 of the current secret (lower-case
 * hex) and is the authentication lookup (UNIQUE, so one indexed probe per request); `secret_prefix`
 * is the non-secret start of the secret shown in lists. JSON columns hold string arrays; NULL in
 * `namespace_restrictions` / `ip_allowlist` means "unrestricted".
 *
 * No foreign key to the identity tables: keys are removed with their tenant by the tenant's deletion
 * path, and this migration stays independent of how the identity schema evolves.
 */
export const apiKeysMigration: Migration = {
  id: 2,
  name: 'api_keys',
  up: `
    CREATE TABLE api_keys (
      id                     TEXT PRIMARY KEY,
      tenant_id              TEXT NOT NULL,
      name                   TEXT NOT NULL,
      scopes                 TEXT NOT NULL,
      namespace_restrictions TEXT,
      ip_allowlist           TEXT,
      secret_hash            TEXT NOT NULL UNIQUE,
      secret_prefix          TEXT NOT NULL,
      status                 TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
      created_by             TEXT,
      created_at             TEXT NOT NULL,
      rotated_at             TEXT,
      revoked_at             TEXT,
      last_used_at           TEXT
    );
    CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id, created_at);
  `,
};
