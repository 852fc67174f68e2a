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
 *
 * What steps 1–4 read from a write's text alone comes from `write-analysis.ts`, through the
 * `WriteAnalyzer` port (on a worker thread by default, requested a batch ahead).
 *
 * Exactly once: the queued write is deleted in the transaction that inserts its version (unique per
 * memory) and moves the memory's committed version from v-1 to v; a crash anywhere replays the batch
 * from the queue; a concurrent consolidator's commit fails its guards and is re-planned.
 */
import { compareFacts, extractFacts, type ContradictionDetector, type Fact } from '../consolidation/contradiction.js';
import { contentFingerprint, findDuplicate } from '../consolidation/dedupe.js';
import { similarityTokens } from '../consolidation/similarity.js';
import { extractEntities } from '../../text/entities.js';
import type { Embedder } from '../../ports/embedder.js';
import type { WriteAnalyzer } from '../../ports/write-analyzer.js';
import {
  ConsolidationConflictError,
  type ConsolidationOp,
  type ContradictionPolicy,
  type DerivedState,
  type MemoryCandidate,
  type MemoryContent,
  type MemoryRecord,
  type MemoryStore,
} from '../../ports/memories.js';
import type { ExtractedEntity, IndexedMemory } from '../../ports/search-index.js';
import type { QueuedWrite, WriteQueue } from '../../ports/write-queue.js';
import type { Logger } from '../../logger.js';
import type { Clock } from '../clock.js';
import { contentCues, mayContradict, type ContentCues } from './subjects.js';
import { entityText, inThreadWriteAnalyzer, screenedText, type WriteAnalysis, type WriteAnalysisOptions } from './write-analysis.js';

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
   * Called by `drainTenant` right before each batch reads the tenant's queue: every write committed
   * before this call will be consolidated by that drain (the trigger uses it to skip redundant jobs).
   */
  onDrainStart?: (tenantId: string) => void;
  /** Called when a drain ends (its last batch found nothing, it ran out of budget, or it failed). */
  onDrainEnd?: (tenantId: string) => void;
  /**
   * Writes per batch (one transaction). Default 64: a batch's commit holds the file's write lock and,
   * with in-process workers, the event loop; 256 writes took ~0.2 s, during which every request waited
   * (writes behind the lock, everything behind the loop). 64, 32 and 256 consolidated at the same rate
   * (1,119–1,294, 1,109–1,115 and 1,143–1,188 memories/s in `bench:consolidation`, two runs each).
   */
  batchSize?: number;
  /** Candidates considered per write for dedupe and contradiction (most specific subject first). Default 8. */
  candidateLimit?: number;
}

export interface BatchResult {
  /** Writes applied by this call. */
  applied: number;
  /** Whether queued writes remained when the batch was taken beyond it. */
  more: boolean;
}

export interface DrainResult {
  applied: number;
  batches: number;
  /** Queued writes remain: the budget ran out or `shouldStop` said so. */
  remaining: boolean;
}

export interface DrainOptions {
  /** Stop after this many milliseconds (checked between batches). Default: until empty. */
  budgetMs?: number;
  /** Stop early when this returns true (checked between batches). */
  shouldStop?: () => boolean;
  /**
   * Called after every batch this process commits for the tenant while the call is pending, including
   * while it waits behind another drain of the tenant or shares a follow-up drain (e.g. to renew a job
   * lock: a job waiting for its turn is alive as long as the tenant's drains make progress).
   */
  onProgress?: () => Promise<void> | void;
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

/** Working state of one memory during planning: its consolidated view as of the ops planned so far. */
interface Working {
  record: MemoryRecord;
  /** Consolidated content (the last applied version's), which candidates compare against. */
  content: Pick<MemoryContent, 'title' | 'content' | 'tags' | 'type' | 'agentId'>;
  /** Writes still queued for the memory after the ones planned so far. */
  pendingLeft: number;
  fingerprint: string | null;
  subjects: string[];
  indexed: 'upsert' | 'remove' | null;
  /** Known only from a candidate lookup: `record` holds placeholders beyond the candidate's fields. */
  lite: boolean;
  /** Graph entities of `content`, when a write of this batch analysed it. */
  entities: ExtractedEntity[] | null;
}

const MAX_CONFLICT_RETRIES = 5;

/** A memo of at most `max` entries (the oldest inserted goes first). */
function bounded<V>(max: number): (key: string, make: () => V) => V {
  const entries = new Map<string, V>();
  return (key, make) => {
    let value = entries.get(key);
    if (value === undefined) {
      value = make();
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(key, value);
    }
    return value;
  };
}

/**
 * A cheap pre-filter for `findDuplicate`: an exact duplicate has the same fingerprint; a near duplicate
 * (similarity ≥ 0.9, the mean of cosine and bigram Jaccard over `similarityTokens`) needs a cosine of
 * at least 0.8, so the two token sets share at least half the larger one. Pairs failing both are
 * never near duplicates and skip the full comparison.
 */
function plausibleDuplicate(aTokens: ReadonlySet<string>, aFingerprint: string, b: Working, bTokens: ReadonlySet<string>): boolean {
  if (b.fingerprint !== null && b.fingerprint === aFingerprint) return true;
  let shared = 0;
  for (const t of aTokens) if (bTokens.has(t)) shared++;
  return shared >= 0.5 * Math.max(aTokens.size, bTokens.size);
}

export function createConsolidationService(deps: ConsolidationDeps): ConsolidationService {
  const batchSize = deps.batchSize ?? 64;
  const candidateLimit = deps.candidateLimit ?? 8;
  const analyzer = deps.analyzer ?? inThreadWriteAnalyzer({ quality: 'nlp', entities: false, offlineFacts: false });
  const analysisOptions: WriteAnalysisOptions = analyzer.options;
  /**
   * Analyses requested and not yet used, by tenant and queued write id (a write's text never changes).
   * Each drain holds its current batch and the one requested ahead; room is kept for the jobs that
   * drain tenants concurrently, and entries of writes deleted meanwhile age out.
   */
  const analyses = new Map<string, Promise<WriteAnalysis>>();
  const maxAnalysesKept = batchSize * 16;
  const analysisKey = (w: QueuedWrite) => `${w.tenantId}:${w.id}`;
  /**
   * Per tenant: the tail of the drains chained in this process, the follow-up not yet started, and the
   * progress callbacks of every call pending on the lane.
   */
  interface Lane {
    tail: Promise<void>;
    next: Promise<DrainResult> | null;
    progress: Set<() => Promise<void> | void>;
  }
  const lanes = new Map<string, Lane>();
  /** Facts of texts seen recently (offline detector), by fingerprint; the NLP is the expensive part. */
  const facts = bounded<Fact[]>(5_000);
  /** `similarityTokens` and `contentCues` of consolidated contents, by memory id and version. */
  const tokens = bounded<Set<string>>(20_000);
  const cues = bounded<ContentCues>(20_000);
  const versionKey = (w: Working) => `${w.record.id}:${w.record.committedVersion}`;
  const tokensOf = (w: Working) => tokens(versionKey(w), () => new Set(similarityTokens(w.content.content)));
  const cuesOf = (w: Working) => cues(versionKey(w), () => contentCues(w.content.content));
  const factsOf = (text: string) => facts(contentFingerprint(text), () => extractFacts(text));

  async function contradicts(newer: string, newerCues: ContentCues, older: Working): Promise<string | null> {
    if (deps.contradictionDetector) {
      const r = await deps.contradictionDetector.detect({ content: newer }, { content: older.content.content });
      return r.contradicts ? (r.reason ?? 'contradiction') : null;
    }
    if (!mayContradict(newerCues, cuesOf(older))) return null;
    const r = compareFacts(factsOf(newer), factsOf(older.content.content));
    return r.contradicts ? (r.reason ?? 'contradiction') : null;
  }

  function workingOf(record: MemoryRecord, fingerprint: string | null): Working {
    return {
      record,
      content: { title: record.title, content: record.content, tags: record.tags, type: record.type, agentId: record.agentId },
      pendingLeft: record.pendingCount,
      fingerprint,
      subjects: [],
      indexed: null,
      lite: false,
      entities: null,
    };
  }

  function workingOfCandidate(tenantId: string, c: MemoryCandidate): Working {
    const record: MemoryRecord = {
      id: c.id,
      tenantId,
      namespace: c.namespace,
      title: c.title,
      content: c.content,
      tags: c.tags,
      type: c.type,
      agentId: c.agentId,
      metadata: {},
      writerSensitivity: null,
      sensitivity: 'high',
      sensitivityReasons: [],
      status: 'active',
      version: c.committedVersion,
      committedVersion: c.committedVersion,
      pendingCount: 0,
      contradictionStatus: 'clear',
      contradictionPolicy: null,
      conflictsWith: [],
      supersededBy: null,
      mergedInto: null,
      injectionFlagged: c.injectionFlagged,
      injectionScore: 0,
      injectionPatterns: [],
      quality: 0,
      sizeBytes: 0,
      createdAt: '',
      updatedAt: '',
    };
    return { ...workingOf(record, c.fingerprint), lite: true };
  }

  /** Loads the full record of a candidate before the pipeline acts on it. */
  async function hydrate(tenantId: string, w: Working): Promise<void> {
    if (!w.lite) return;
    const [full] = await deps.memories.getMany(tenantId, [w.record.id]);
    if (!full || full.committedVersion !== w.record.committedVersion || full.pendingCount > 0 || full.status !== 'active') {
      throw new ConsolidationConflictError(`memory ${w.record.id} changed while consolidation was planning`);
    }
    w.record = full;
    w.lite = false;
  }

  function isCandidate(w: Working): boolean {
    const r = w.record;
    return r.status === 'active' && r.mergedInto === null && r.committedVersion > 0 && w.pendingLeft === 0;
  }

  async function plan(tenantId: string, writes: QueuedWrite[], analysed: readonly WriteAnalysis[]) {
    const at = new Date(deps.clock()).toISOString();
    const settings = await deps.memories.getSettings(tenantId);
    const policy: ContradictionPolicy = settings.contradictionPolicy;
    const working = new Map<string, Working>();
    for (const r of await deps.memories.getMany(tenantId, [...new Set(writes.map((w) => w.memoryId))])) {
      working.set(r.id, workingOf(r, null));
    }
    const ops: ConsolidationOp[] = [];
    let applied = 0;

    async function candidates(namespace: string, fingerprint: string, subjects: string[], self: string): Promise<Working[]> {
      const out = new Map<string, Working>();
      // The most specific keys find the relevant memories; the rest would only add noise and queries.
      const lookup = subjects.slice(0, 5);
      const fromStore = await deps.memories.findCandidates(tenantId, { namespace, fingerprint, subjects: lookup, excludeIds: [self], limit: candidateLimit });
      for (const r of fromStore) {
        const w = working.get(r.id);
        if (w) {
          if (isCandidate(w)) out.set(r.id, w);
        } else {
          const fresh = workingOfCandidate(tenantId, r);
          working.set(r.id, fresh);
          out.set(r.id, fresh);
        }
      }
      // Memories consolidated earlier in this batch are not visible to the store query yet.
      const keys = new Set(subjects);
      for (const [id, w] of working) {
        if (out.size >= candidateLimit * 2) break;
        if (id === self || out.has(id) || w.record.namespace !== namespace || !isCandidate(w)) continue;
        if (w.fingerprint === fingerprint || w.subjects.some((s) => keys.has(s))) out.set(id, w);
      }
      return [...out.values()];
    }

    for (const [index, w] of writes.entries()) {
      const m = working.get(w.memoryId);
      if (!m) continue; // deleted since the batch was read: its writes went with it
      if (w.version !== m.record.committedVersion + 1) {
        throw new ConsolidationConflictError(`memory ${w.memoryId} is at version ${m.record.committedVersion}, queued write is ${w.version}`);
      }
      m.pendingLeft -= 1;
      const c = w.content;
      const a = analysed[index]!;
      const { injection, sensitivity, fingerprint, subjects, cues: ownCues } = a;
      if (a.facts) facts(fingerprint, () => a.facts!);

      let mergedInto: string | null = null;
      const conflicts: string[] = [];
      const found = await candidates(w.namespace, fingerprint, subjects, w.memoryId);
      // A memory flagged as an injection attempt takes no part in dedupe, either way: folded into a
      // clean memory it would be archived out of review and its writer pointed at trusted text; as a
      // survivor it would swallow the clean memories written after it (out of default search).
      if (w.kind === 'create' && m.pendingLeft === 0 && !injection.flagged) {
        const ownTokens = new Set(a.tokens);
        const dup = findDuplicate(
          { content: c.content, title: c.title },
          found
            .filter((f) => !f.record.injectionFlagged)
            .filter((f) => plausibleDuplicate(ownTokens, fingerprint, f, tokensOf(f)))
            .map((f) => ({ id: f.record.id, content: f.content.content, title: f.content.title })),
        );
        if (dup) mergedInto = dup.id;
      }
      if (mergedInto === null && !injection.flagged) {
        for (const older of found) {
          if (older.record.injectionFlagged) continue;
          const reason = await contradicts(c.content, ownCues, older);
          if (reason === null) continue;
          await hydrate(tenantId, older);
          conflicts.push(older.record.id);
          const o = older.record;
          const conflictsWith = [...new Set([...o.conflictsWith, w.memoryId])];
          if (policy === 'NEWER_WINS') {
            ops.push({
              kind: 'update',
              memoryId: o.id,
              expectCommittedVersion: o.committedVersion,
              snapshot: {
                change: 'supersede',
                ...older.content,
                metadata: o.metadata,
                sensitivity: o.sensitivity,
                status: 'superseded',
                rolledBackTo: null,
                createdAt: at,
              },
              set: { status: 'superseded', contradictionStatus: 'resolved', contradictionPolicy: policy, conflictsWith, supersededBy: w.memoryId },
            });
            older.record = {
              ...o,
              status: 'superseded',
              contradictionStatus: 'resolved',
              contradictionPolicy: policy,
              conflictsWith,
              supersededBy: w.memoryId,
              version: o.committedVersion + 1,
              committedVersion: o.committedVersion + 1,
            };
            older.indexed = 'upsert';
          } else {
            ops.push({
              kind: 'update',
              memoryId: o.id,
              expectCommittedVersion: o.committedVersion,
              snapshot: null,
              set: { status: o.status, contradictionStatus: 'flagged', contradictionPolicy: policy, conflictsWith, supersededBy: o.supersededBy },
            });
            older.record = { ...o, contradictionStatus: 'flagged', contradictionPolicy: policy, conflictsWith };
          }
          deps.logger.debug({ tenantId, memoryId: w.memoryId, older: o.id, policy, reason }, 'contradiction');
        }
      }

      const status = mergedInto !== null ? 'archived' : 'active';
      // A merged duplicate is never indexed: its quality is moot.
      const quality = mergedInto !== null ? 0 : a.quality;
      const derived: DerivedState = {
        status,
        sensitivity: sensitivity.level,
        sensitivityReasons: sensitivity.reasons,
        injectionFlagged: injection.flagged,
        injectionScore: injection.score,
        injectionPatterns: injection.patterns.map((p) => ({ id: p.id, category: p.category, field: p.field, evidence: p.evidence, weight: p.weight })),
        quality,
        contradictionStatus: conflicts.length === 0 ? 'clear' : policy === 'NEWER_WINS' ? 'resolved' : 'flagged',
        contradictionPolicy: conflicts.length === 0 ? null : policy,
        conflictsWith: conflicts,
        supersededBy: null,
        mergedInto,
        fingerprint,
        subjects,
      };
      ops.push({
        kind: 'apply',
        writeId: w.id,
        memoryId: w.memoryId,
        namespace: w.namespace,
        version: w.version,
        snapshot: {
          change: w.kind,
          title: c.title,
          content: c.content,
          tags: c.tags,
          type: c.type,
          agentId: c.agentId,
          metadata: c.metadata,
          sensitivity: sensitivity.level,
          status,
          rolledBackTo: w.rolledBackTo,
          createdAt: at,
        },
        derived,
        ...(mergedInto !== null ? { usage: { memories: -1, bytes: -m.record.sizeBytes } } : {}),
      });
      const { fingerprint: _f, subjects: _s, ...shown } = derived;
      m.record = { ...m.record, ...shown, committedVersion: w.version, metadata: c.metadata };
      m.content = { title: c.title, content: c.content, tags: c.tags, type: c.type, agentId: c.agentId };
      m.fingerprint = fingerprint;
      m.subjects = subjects;
      m.indexed = mergedInto !== null ? 'remove' : 'upsert';
      m.entities = a.entities;
      // Seed the memos: this version may be a candidate for the writes that follow it.
      tokens(versionKey(m), () => new Set(a.tokens));
      cues(versionKey(m), () => a.cues);
      applied++;
    }

    const upserts = [...working.values()].filter((w) => w.indexed === 'upsert');
    const vectors = await embed(upserts.map((w) => screenedText(w.content)));
    const indexUpserts: IndexedMemory[] = upserts.map((w, i) => ({
      memoryId: w.record.id,
      namespace: w.record.namespace,
      agentId: w.content.agentId,
      title: w.content.title,
      content: w.content.content,
      tags: w.content.tags,
      status: w.record.status,
      injectionFlagged: w.record.injectionFlagged,
      quality: w.record.quality,
      createdAt: w.record.createdAt,
      vector: vectors[i] ?? null,
      entities: w.entities ?? (analysisOptions.entities ? extractEntities(entityText(w.content)) : []),
    }));
    const indexRemovals = [...working.values()].filter((w) => w.indexed === 'remove').map((w) => w.record.id);
    return { plan: { ops, indexUpserts, indexRemovals, at }, applied };
  }

  async function embed(texts: string[]): Promise<(Float32Array | null)[]> {
    if (!deps.embedder || texts.length === 0) return texts.map(() => null);
    return deps.embedder.embed(texts);
  }

  /** The analyses of these writes: requested now unless already requested (by an earlier batch). */
  function analysesOf(writes: readonly QueuedWrite[]): Promise<WriteAnalysis>[] {
    const out = writes.map((w) => analyses.get(analysisKey(w)));
    const missing = writes.filter((_, i) => out[i] === undefined);
    if (missing.length > 0) {
      // Entries of writes deleted before they were consolidated would otherwise stay forever.
      while (analyses.size + missing.length > maxAnalysesKept && analyses.size > 0) analyses.delete(analyses.keys().next().value!);
      const all = analyzer.analyze(
        missing.map((w) => ({
          title: w.content.title,
          content: w.content.content,
          tags: w.content.tags,
          metadata: w.content.metadata,
          agentId: w.content.agentId,
          writerSensitivity: w.content.writerSensitivity,
        })),
      );
      const fresh = new Map<string, Promise<WriteAnalysis>>();
      missing.forEach((w, i) => {
        const key = analysisKey(w);
        const one = all.then((r) => {
          if (r[i] === undefined) throw new Error(`the write analyzer answered ${r.length} analyses for ${missing.length} writes`);
          return r[i];
        });
        // A failed analysis is forgotten (the batch that needs it asks again); a prefetch nobody
        // awaited must not become an unhandled rejection.
        one.catch(() => {
          if (analyses.get(key) === one) analyses.delete(key);
        });
        analyses.set(key, one);
        fresh.set(key, one);
      });
      writes.forEach((w, i) => (out[i] ??= fresh.get(analysisKey(w))));
    }
    return out as Promise<WriteAnalysis>[];
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
        const analysed = analysesOf(writes);
        if (ahead > 0) analysesOf(next);
        const { plan: p, applied } = await plan(tenantId, writes, await Promise.all(analysed));
        await deps.memories.commitConsolidation(tenantId, p);
        for (const w of writes) analyses.delete(analysisKey(w));
        return { applied, more };
      } catch (err) {
        if (!(err instanceof ConsolidationConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw err;
        deps.logger.debug({ tenantId, attempt, err: err.message }, 'consolidation batch conflicted; re-planning');
      }
    }
  }

  async function drain(tenantId: string, options: DrainOptions, lane: Lane): Promise<DrainResult> {
    const started = deps.clock();
    let applied = 0;
    let batches = 0;
    for (;;) {
      deps.onDrainStart?.(tenantId);
      const r = await consolidateBatch(tenantId);
      applied += r.applied;
      if (r.applied > 0) batches++;
      // A failing callback is its caller's business (the job logs a failed lock renewal), not this drain's.
      if (r.applied > 0) await Promise.all([...lane.progress].map((p) => Promise.resolve().then(p).catch(() => undefined)));
      if (r.applied === 0) return { applied, batches, remaining: false };
      if (options.shouldStop?.() || (options.budgetMs !== undefined && deps.clock() - started >= options.budgetMs)) {
        return { applied, batches, remaining: true };
      }
      // Let the event loop serve requests between batches (inline workers share the HTTP process).
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  return {
    consolidateBatch,
    drainTenant(tenantId, options = {}) {
      let lane = lanes.get(tenantId);
      if (!lane) {
        lane = { tail: Promise.resolve(), next: null, progress: new Set() };
        lanes.set(tenantId, lane);
      }
      const l = lane;
      const progress = options.onProgress;
      const pending = (result: Promise<DrainResult>) => {
        if (!progress) return result;
        l.progress.add(progress);
        return result.finally(() => l.progress.delete(progress));
      };
      if (l.next) return pending(l.next);
      const run = l.tail.then(() => {
        l.next = null;
        return drain(tenantId, options, l).finally(() => deps.onDrainEnd?.(tenantId));
      });
      l.next = run;
      const tail = run.then(
        () => undefined,
        () => undefined,
      );
      l.tail = tail;
      void tail.then(() => {
        if (l.tail === tail) lanes.delete(tenantId);
      });
      return pending(run);
    },
    followUpQueued: (tenantId) => lanes.get(tenantId)?.next != null,
    tenantsWithPending: (limit = 100) => deps.queue.tenantsWithPending(limit),
  };
}
