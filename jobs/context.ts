import type { Clock } from '../server/services/clock.js';
import type { MaintenanceService } from '../server/services/maintenance.js';
import type { RetentionService } from '../server/services/retention.js';
import type { ConsolidationTrigger } from '../server/services/memories/consolidation-trigger.js';
import type { ConsolidationService } from '../server/services/memories/consolidation.js';
import type { EnrichmentService } from '../server/services/knowledge/enrichment.js';
import type { KnowledgeRefresh } from '../server/services/knowledge/knowledge-refresh.js';
import type { IndexOutboxService } from '../server/services/search/index-outbox.js';

/**
 * What job handlers receive: services only, never ports. The container's `Services` provides it, and
 * naming the slice here (rather than importing the container) keeps `jobs/` below the composition root.
 */
export interface JobServices {
  clock: Clock;
  consolidation: ConsolidationService;
  /** Enqueues the drains a run leaves to a continuation, and the sweep's. */
  consolidationTrigger: ConsolidationTrigger;
  maintenance: MaintenanceService;
  /** Per-tenant retention (`maintenance.retention`). */
  retention: Pick<RetentionService, 'enforce'>;
  /** The search index outbox the drain job empties (server profile; a no-op where there is none). */
  indexOutbox: IndexOutboxService;
  /** Knowledge enrichment runs (`knowledge.enrich`). */
  enrichment: Pick<EnrichmentService, 'run'>;
  /** Re-enrichment of objects consolidated memories name (`knowledge.refresh`). */
  knowledgeRefresh: Pick<KnowledgeRefresh, 'run'>;
}
