import { DEFAULT_KNOWLEDGE_SETTINGS, type KnowledgeSettingsStore } from '../../server/ports/knowledge-settings.js';
import type { KnowledgeCollections } from './knowledge-collections.js';

/** Per-tenant Knowledge API settings on MongoDB: one upserted document per tenant, keyed by its id. */
export function createMongoKnowledgeSettingsStore(c: Pick<KnowledgeCollections, 'settings'>): KnowledgeSettingsStore {
  const { settings } = c;
  return {
    async get(tenantId) {
      const d = await settings.findOne({ _id: tenantId });
      return d ? { webEnrichment: d.webEnrichment, updatedAt: d.updatedAt } : { ...DEFAULT_KNOWLEDGE_SETTINGS };
    },
    async put(tenantId, s, at) {
      await settings.updateOne({ _id: tenantId }, { $set: { webEnrichment: s.webEnrichment, updatedAt: at } }, { upsert: true });
      return { webEnrichment: s.webEnrichment, updatedAt: at };
    },
  };
}
