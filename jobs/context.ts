import type { JobQueue } from '../server/ports/job-queue.js';
import type { Clock } from '../server/services/clock.js';
import type { MaintenanceService } from '../server/services/maintenance.js';
import type { ConsolidationService } from '../server/services/memories/consolidation.js';

/**
 * What job handlers receive: services only, never ports. The container's `Services` provides it, and
 * naming the slice here (rather than importing the container) keeps `jobs/` below the composition root.
 */
export interface JobServices {
  now: Clock;
  jobs: JobQueue;
  consolidation: ConsolidationService;
  maintenance: MaintenanceService;
}
