import type { AnyJobDefinition } from '../definition.js';
import { consolidateWrites, consolidationSweep } from './consolidate-writes.js';
import { purgeEnded } from './purge-ended.js';

/**
 * Every job the service runs. Each area owns its definition file in this folder and adds one import
 * and one array entry here (additively; keep the list sorted by name). Every process defines all of
 * them: the HTTP server needs them to validate what it enqueues, workers to run them.
 *
 * See `jobs/README.md` and the example in `jobs/definition.ts`.
 */
export const jobDefinitions: readonly AnyJobDefinition[] = [consolidateWrites, consolidationSweep, purgeEnded];
