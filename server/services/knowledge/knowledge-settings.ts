import type { KnowledgeSettings, KnowledgeSettingsStore } from '../../ports/knowledge-settings.js';
import type { AuditService } from '../audit.js';
import { isoAt, systemClock, type Clock } from '../clock.js';
import type { KnowledgeActedBy } from './knowledge-service.js';

export interface KnowledgeSettingsDeps {
  settings: KnowledgeSettingsStore;
  audit: Pick<AuditService, 'record'>;
  clock?: Clock;
}

/**
 * The tenant's Knowledge API settings (`/settings/knowledge`). Turning an outside engine on decides
 * what leaves the deployment, so every change that changes something goes to the audit log.
 */
export function createKnowledgeSettingsService(deps: KnowledgeSettingsDeps) {
  const clock = deps.clock ?? systemClock;
  return {
    get: (tenantId: string): Promise<KnowledgeSettings> => deps.settings.get(tenantId),

    async update(tenantId: string, next: { webEnrichment: boolean }, by: KnowledgeActedBy): Promise<KnowledgeSettings> {
      const before = await deps.settings.get(tenantId);
      const after = await deps.settings.put(tenantId, { webEnrichment: next.webEnrichment }, isoAt(clock()));
      if (before.webEnrichment !== after.webEnrichment) {
        await deps.audit.record({
          tenantId,
          type: 'knowledge.settings_update',
          ...by,
          target: { type: 'knowledge_settings', id: tenantId },
          details: { old: { web_enrichment: before.webEnrichment }, new: { web_enrichment: after.webEnrichment } },
        });
      }
      return after;
    },
  };
}

export type KnowledgeSettingsService = ReturnType<typeof createKnowledgeSettingsService>;
