import type { AuditService } from '../audit.js';
import type { EnrichmentService } from './enrichment.js';
import type { KnowledgeActedBy } from './knowledge-service.js';

/**
 * A person asking for an enrichment run (the portal's "Enrich" button): the same trigger as the API
 * key route, over every namespace (a user's role is not namespace-restricted), and audited with who
 * asked, since a run may call paid engines (LLM, web) on the tenant's behalf.
 */
export async function requestEnrichment(
  deps: { enrichment: Pick<EnrichmentService, 'trigger'>; audit: Pick<AuditService, 'record'> },
  tenantId: string,
  type: string,
  id: string,
  by: KnowledgeActedBy,
): Promise<{ id: string; status: 'ENRICHING' }> {
  const started = await deps.enrichment.trigger(tenantId, type, id, null);
  await deps.audit.record({
    tenantId,
    type: 'knowledge.enrich_request',
    ...by,
    target: { type: 'knowledge_object', id },
    details: { ks_type: type },
  });
  return started;
}
