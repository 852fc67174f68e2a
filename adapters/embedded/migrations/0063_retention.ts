import type { Migration } from './migration.js';

/**
 * Per-tenant retention (`/api/portal/retention`): null keeps forever. The index lets the retention job
 * find a tenant's versions created before a cutoff without reading every version of every tenant.
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
    CREATE INDEX memory_versions_tenant_created ON memory_versions(tenant_id, created_at);
  `,
};
