/** What every measurement of a `bench:search-http` run shares: its settings, queries and load generator. */
import type { SearchMode } from '../../server/ports/search-index.js';
import { queriesFor } from '../support/corpus.js';
import type { LoadGenerator } from './load-generator.js';
import type { SearchHttpSettings } from './options.js';

export const MODES: SearchMode[] = ['vector-only', 'hybrid', 'hybrid+graph'];

export interface RunContext {
  settings: SearchHttpSettings;
  /** Timed, profiled and recall queries: the first `requests`, `profileRequests` or `recallQueries` of them. */
  queries: string[];
  /** Warm-up queries, never timed (another seed). */
  warmupQueries: string[];
  gen: LoadGenerator;
}

export function runContext(settings: SearchHttpSettings, gen: LoadGenerator): RunContext {
  return {
    settings,
    queries: queriesFor(Math.max(settings.requests, settings.profileRequests, settings.recallQueries)),
    warmupQueries: queriesFor(Math.max(1, settings.warmup), 98),
    gen,
  };
}
