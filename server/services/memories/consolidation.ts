/**
 * The consolidation pipeline: drains a tenant's queued writes in batches and commits each batch
 * atomically. Per write, in order:
 *
 *  1. injection screening (`screenMemoryForInjection`: title, content, tags, metadata, agent id):
 *     named patterns and a score; a flagged memory is kept, marked, indexed as flagged (left out of
 *     default search), never supersedes anything and takes no part in dedupe (never merged into
 *     another memory, never a survivor of one);
 *  2. sensitivity (`classifySensitivity`): max(writer's choice, detected) — never downgraded;
 *  3. dedupe (creates only, when nothing else is queued for the memory): an exact (fingerprint) or
 *     near duplicate (`findDuplicate`) of an active memory in the same namespace is merged: the new
 *     memory keeps its id and first version as a record `archived` with `merged_into` naming the
 *     surviving memory, stops counting in usage and is never indexed; the survivor is unchanged;
 *  4. contradiction handling with the tenant's policy: candidates share a subject key (same
 *     namespace, active, consolidated, nothing queued); the offline detector (`extractFacts` /
 *     `compareFacts`, only on pairs `mayContradict` lets through) or the configured LLM detector
 *     decides. NEWER_WINS: each conflicting older memory gets a `supersede` version with status
 *     `superseded`, both sides `contradiction_status: resolved`. FLAG: both sides `flagged`;
 *  5. commit: the write's version (its change kind), the memory's consolidated state, the pipeline's
 *     changes to other memories and the search index rows, for the whole batch in one transaction
 *     (embeddings computed before it). `dirty` clears when nothing is left queued.
 *  6. after the commit, the names the batch's memories mention go to `knowledgeRefresh`, which queues
 *     re-enrichment of the knowledge objects they identify (one look-up per batch; never fails the batch).
 *
 * What steps 1–4 read from a write's text alone comes from `write-analysis.ts`, through the
 * `WriteAnalyzer` port (on a worker thread by default, requested a batch ahead by
 * `analysis-prefetch.ts`); steps 1–4 are planned by `consolidation-planner.ts`; drains of one tenant
 * are chained by `drain-lanes.ts`.
 *
 * Exactly once: the queued write is deleted in the transaction that inserts its version (unique per
 * memory) and moves the memory's committed version from v-1 to v; a crash anywhere replays the batch
 * from the queue; a concurrent consolidator's commit fails its guards and is re-planned.
 */
import type { ContradictionDetector } from '../consolidation/contradiction.js';
import type { KnowledgeRefresh } from '../knowledge/knowledge-refresh.js';
import type { Embedder } from '../../ports/embedder.js';
import type { WriteAnalyzer } from '../../ports/write-analyzer.js';
import { ConsolidationConflictError, type MemoryStore } from '../../ports/memories.js';
import type { WriteQueue } from '../../ports/write-queue.js';
import type { Logger } from '../../logger.js';
import type { Clock } from '../clock.js';
import { createAnalysisPrefetch } from './analysis-prefetch.js';
import { createConsolidationPlanner } from './consolidation-planner.js';
import type { ConsolidationTrigger } from './consolidation-trigger.js';
import { createDrainLanes, type DrainOptions, type DrainResult } from './drain-lanes.js';
import { inThreadWriteAnalyzer } from './in-thread-write-analyzer.js';
import type { WriteAnalysis } from './write-analysis.js';

export interface ConsolidationDeps {
  memories: MemoryStore;
  queue: WriteQueue;
  clock: Clock;
  logger: Logger;
  /** Embeds index documents before the commit; null/absent: keyword index only. */
  embedder?: Embedder | null;
  /**
   * Analyses each write's text alone (screening, sensitivity, keys, quality, graph entities, offline
   * facts). A parallel analyzer (a worker thread) is asked for the next batch's analyses while this one
   * is planned and committed. Default: in line, the NLP quality score, no entities, no eager facts.
   */
  analyzer?: WriteAnalyzer | null;
  /**
   * An asynchronous contradiction detector (the LLM one when LLM_URL is set). Absent: the offline
   * detector, run only on candidate pairs that `mayContradict`.
   */
  contradictionDetector?: ContradictionDetector | null;
  /**
   * Told by `drainTenant` right before each batch reads the tenant's queue (every write committed
   * before will be consolidated by that drain, so the trigger skips redundant jobs), and when a drain
   * ends (its last batch found nothing, it ran out of budget, or it failed).
   */
  consolidationTrigger?: Pick<ConsolidationTrigger, 'drainStarted' | 'drainEnded'>;
  /**
   * Writes per batch (one transaction). Default 64: a batch's commit holds the file's write lock and,
   * with in-process workers, the event loop, so every request waits for it, and larger batches
   * consolidated no faster (figures: docs/performance.md#batches-of-64-writes).
   */
  batchSize?: number;
  /**
   * Told, after each batch commits, the names its memories mention (`WriteAnalysis.mentions`, flagged
   * ones left out): the knowledge objects they identify are queued for re-enrichment. Absent: none are.
   */
  knowledgeRefresh?: Pick<KnowledgeRefresh, 'memoriesCommitted'> | null;
  /** Candidates considered per write for dedupe and contradiction (most specific subject first). Default 8. */
  candidateLimit?: number;
}

export interface BatchResult {
  /** Writes applied by this call. */
  applied: number;
  /** Whether queued writes remained when the batch was taken beyond it. */
  more: boolean;
}

export interface ConsolidationService {
  /** Consolidates the tenant's oldest queued writes (one batch, one transaction). */
  consolidateBatch(tenantId: string, limit?: number): Promise<BatchResult>;
  /**
   * Consolidates batches until the tenant's queue is empty (a batch finds nothing) or the budget is
   * spent. Within one process, drains of a tenant run one after another: a call made while one runs
   * queues a single follow-up drain (shared by every call made meanwhile), so a write accepted during
   * a drain is always picked up by a drain that starts after it.
   */
  drainTenant(tenantId: string, options?: DrainOptions): Promise<DrainResult>;
  /**
   * True when this process already has a follow-up drain of the tenant queued (not yet started): it
   * will see every write accepted before it starts, so another caller need not wait for it.
   */
  followUpQueued(tenantId: string): boolean;
  /** Tenants with queued writes, oldest first. */
  tenantsWithPending(limit?: number): Promise<string[]>;
}

export type { DrainOptions, DrainResult } from './drain-lanes.js';

const MAX_CONFLICT_RETRIES = 5;

export function createConsolidationService(deps: ConsolidationDeps): ConsolidationService {
  const batchSize = deps.batchSize ?? 64;
  const analyzer = deps.analyzer ?? inThreadWriteAnalyzer({ quality: 'nlp', entities: false, offlineFacts: false });
  const prefetch = createAnalysisPrefetch(analyzer, batchSize * 16);
  const planner = createConsolidationPlanner({
    memories: deps.memories,
    clock: deps.clock,
    logger: deps.logger,
    embedder: deps.embedder,
    contradictionDetector: deps.contradictionDetector,
    analysisOptions: analyzer.options,
    candidateLimit: deps.candidateLimit ?? 8,
  });

  /** Best effort: the batch is committed whatever happens here, so a failure is logged, never replayed. */
  async function refreshMentioned(tenantId: string, analyses: readonly WriteAnalysis[]): Promise<void> {
    if (!deps.knowledgeRefresh) return;
    try {
      await deps.knowledgeRefresh.memoriesCommitted(
        tenantId,
        analyses.filter((a) => !a.injection.flagged).flatMap((a) => a.mentions),
      );
    } catch (err) {
      deps.logger.warn({ tenantId, err: err instanceof Error ? err.message : String(err) }, 'knowledge refresh after consolidation failed');
    }
  }

  async function consolidateBatch(tenantId: string, limit = batchSize): Promise<BatchResult> {
    for (let attempt = 1; ; attempt++) {
      // A parallel analyzer also gets the next batch's writes now, to analyse while this one commits.
      const ahead = analyzer.parallel ? limit : 0;
      const writes = await deps.queue.peek(tenantId, limit + 1 + ahead);
      const more = writes.length > limit;
      const next = writes.splice(limit);
      if (writes.length === 0) return { applied: 0, more: false };
      try {
        const analysed = prefetch.analysesOf(writes);
        // Warms the next batch; its rejections are handled (and forgotten) inside the prefetch.
        if (ahead > 0) void prefetch.analysesOf(next);
        const analyses = await Promise.all(analysed);
        const { plan: p, applied } = await planner.plan(tenantId, writes, analyses);
        await deps.memories.commitConsolidation(tenantId, p);
        prefetch.forget(writes);
        await refreshMentioned(tenantId, analyses);
        return { applied, more };
      } catch (err) {
        if (!(err instanceof ConsolidationConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw err;
        deps.logger.debug({ tenantId, attempt, err: err.message }, 'consolidation batch conflicted; re-planning');
      }
    }
  }

  const lanes = createDrainLanes({
    consolidateBatch: (tenantId) => consolidateBatch(tenantId),
    clock: deps.clock,
    consolidationTrigger: deps.consolidationTrigger,
  });

  return {
    consolidateBatch,
    drainTenant: lanes.drainTenant,
    followUpQueued: lanes.followUpQueued,
    tenantsWithPending: (limit = 100) => deps.queue.tenantsWithPending(limit),
  };
}
