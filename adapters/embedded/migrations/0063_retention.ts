import type { Migration } from './migration.js';

/**
 * Per-tenant retention (`/api/portal/retention`): null keeps forever. The index lets the retention job
 * walk one tenant's versions in memory order (the table's key starts with memory_id, not the tenant).
 */
export const retentionMigration: Migration = {
  id: 63,
  name: 'retention',
  up: `
    CREATE TABLE retention_settings (
      tenant_id       TEXT PRIMARY KEY,
      deleted_days    INTEGER,
      superseded_days INTEGER,
      updated_at      TEXT NOT NULL,
      updated_by      TEXT
    );
    CREATE INDEX memory_versions_tenant_memory ON memory_versions(tenant_id, memory_id, version);
  `,
};
