import { refreshKnowledgeJob } from '../../jobs/catalogue.js';
import type { KnowledgeObjectStore } from '../../ports/knowledge.js';
import type { Scheduler } from '../../ports/scheduler.js';
import { systemClock, type Clock } from '../clock.js';
import { isHeld, type EnrichmentService } from './enrichment.js';

/**
 * Objects stay fresh (issue #23 §4): when consolidation commits memories, the tenant's knowledge
 * objects whose identity key is one of the names they mention are queued for re-enrichment — one
 * store look-up per batch, and one `knowledge.refresh` job per object, unique per object and debounced
 * by the job queue, so a burst of mentions gives one run after a quiet period (and at the latest
 * `maxWaitMs` after the first). The job then starts an ordinary run over every namespace, unless the
 * object opted out or a live run holds it.
 */

/** Objects queued per consolidated batch at most (a batch naming more refreshes the first ones, by id). */
export const REFRESH_OBJECTS_PER_BATCH = 200;
/** Names looked up per batch at most: the look-up stays one bounded query. */
export const REFRESH_NAMES_PER_BATCH = 5_000;

export interface KnowledgeRefreshDeps {
  objects: Pick<KnowledgeObjectStore, 'findByIdentityKeys'>;
  enrichment: Pick<EnrichmentService, 'refresh'>;
  scheduler: () => Pick<Scheduler, 'now'>;
  /** Quiet period after the last mention before the run (KNOWLEDGE_REFRESH_DELAY_MS). */
  delayMs: number;
  /** Longest a constantly mentioned object waits after its first mention (KNOWLEDGE_REFRESH_MAX_WAIT_MS). */
  maxWaitMs: number;
  clock?: Clock;
}

/** What a `knowledge.refresh` job did: started a run, found nothing to do, or queued itself behind the run holding the object. */
export type RefreshJobOutcome = 'queued' | 'gone' | 'disabled' | 'deferred';

export function createKnowledgeRefresh(deps: KnowledgeRefreshDeps) {
  const clock = deps.clock ?? systemClock;

  const schedule = (tenantId: string, objectId: string, after: string) =>
    deps
      .scheduler()
      .now(
        refreshKnowledgeJob,
        { tenantId, objectId, after },
        { unique: { tenantId, objectId, after }, debounceMs: deps.delayMs, maxWaitMs: deps.maxWaitMs },
      );

  return {
    /** After a batch committed: queues the objects `names` (normalised, see `mentionedNames`) identify; how many. */
    async memoriesCommitted(tenantId: string, names: Iterable<string>): Promise<number> {
      const keys = [...new Set(names)].slice(0, REFRESH_NAMES_PER_BATCH);
      if (keys.length === 0) return 0;
      const matches = await deps.objects.findByIdentityKeys(tenantId, keys, REFRESH_OBJECTS_PER_BATCH);
      const now = clock();
      let queued = 0;
      for (const m of matches) {
        if (m.doNotEnrich) continue;
        // A run holding the object may have read the memories before this batch: the refresh waits for it.
        await schedule(tenantId, m.id, m.enrichment && isHeld(m.enrichment, now) ? m.enrichment.runId : '');
        queued++;
      }
      return queued;
    },

    /** The `knowledge.refresh` job's work. `after`: the run the job was queued behind ('' when none). */
    async run(tenantId: string, objectId: string, after: string): Promise<RefreshJobOutcome> {
      const result = await deps.enrichment.refresh(tenantId, objectId);
      if (result.outcome !== 'held') return result.outcome;
      // Queued behind a run that is still going: once more behind it, under the other of two keys (the
      // job running now still holds its own key, and would absorb a job queued under it). A run that
      // never ends loses its hold after RUN_HOLD_MS, and the next of these jobs takes the object over.
      await schedule(tenantId, objectId, after === result.runId ? `${result.runId}+` : result.runId);
      return 'deferred';
    },
  };
}

export type KnowledgeRefresh = ReturnType<typeof createKnowledgeRefresh>;
