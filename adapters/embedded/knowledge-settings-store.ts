import { DEFAULT_KNOWLEDGE_SETTINGS, type KnowledgeSettingsStore } from '../../server/ports/knowledge-settings.js';
import type { EmbeddedDatabase } from './database.js';

/** Per-tenant Knowledge API settings in the embedded libsql database (one upserted row per tenant). */
export function createEmbeddedKnowledgeSettingsStore(db: EmbeddedDatabase): KnowledgeSettingsStore {
  const select = db.prepare('SELECT web_enrichment, updated_at FROM knowledge_settings WHERE tenant_id = ?');
  const upsert = db.prepare(`INSERT INTO knowledge_settings (tenant_id, web_enrichment, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (tenant_id) DO UPDATE SET web_enrichment = excluded.web_enrichment, updated_at = excluded.updated_at`);
  return {
    async get(tenantId) {
      const row = select.get([tenantId]) as { web_enrichment: number; updated_at: string } | undefined;
      return row ? { webEnrichment: row.web_enrichment === 1, updatedAt: row.updated_at } : { ...DEFAULT_KNOWLEDGE_SETTINGS };
    },
    async put(tenantId, settings, at) {
      upsert.run([tenantId, settings.webEnrichment ? 1 : 0, at]);
      return { webEnrichment: settings.webEnrichment, updatedAt: at };
    },
  };
}
