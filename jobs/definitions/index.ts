import type { JobCatalogue } from '../../server/jobs/catalogue.js';
import type { AnyJobDefinition } from '../definition.js';
import { consolidateWrites, consolidationSweep } from './consolidate-writes.js';
import { drainIndexOutbox } from './drain-index-outbox.js';
import { enrichKnowledge } from './enrich-knowledge.js';
import { purgeEnded } from './purge-ended.js';
import { enforceRetention } from './enforce-retention.js';
import { refreshKnowledge } from './refresh-knowledge.js';

/** One handler per catalogue job, under the catalogue's key: the compiler refuses a job without one. */
const handlers: { [K in keyof JobCatalogue]: AnyJobDefinition & { name: JobCatalogue[K]['name'] } } = {
  consolidateWrites,
  consolidationSweep,
  drainIndexOutbox,
  purgeEnded,
  enforceRetention,
  enrichKnowledge,
  refreshKnowledge,
};

/**
 * Every job the service runs. Every process defines all of them: the HTTP server needs them to
 * validate what it enqueues, workers to run them. See `jobs/README.md`.
 */
export const jobDefinitions: readonly AnyJobDefinition[] = Object.values(handlers);
