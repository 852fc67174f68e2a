import type { JobStore } from '../../jobs/agenda.js';
import type { StoragePorts } from '../ports/index.js';

/**
 * What a storage profile opens: the ports services see, plus where the job queue keeps its jobs,
 * which only the composition root reads (it hands it to `jobs/agenda.ts`), so no port names a backend.
 */
export interface ProfileStorage extends StoragePorts {
  jobStore: JobStore;
}
