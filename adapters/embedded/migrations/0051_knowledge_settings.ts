import type { Migration } from './migration.js';

/** `knowledge_settings`: one row per tenant that saved its Knowledge API settings (server/ports/knowledge-settings.ts). */
export const knowledgeSettingsMigration: Migration = {
  id: 51,
  name: 'knowledge_settings',
  up: `
    CREATE TABLE knowledge_settings (
      tenant_id      TEXT PRIMARY KEY,
      web_enrichment INTEGER NOT NULL CHECK (web_enrichment IN (0, 1)),
      updated_at     TEXT NOT NULL
    );
  `,
};
