/**
 * Plans one batch of a tenant's queued writes (steps 1–4 of `consolidation.ts`): reads the memories and
 * their candidates, decides merges and contradictions, and returns the ops of the batch's commit with
 * its search index rows. It writes nothing; a candidate that changed meanwhile throws
 * `ConsolidationConflictError` and the batch is planned again.
 */
import { compareFacts, extractFacts, type ContradictionDetector, type Fact } from '../consolidation/contradiction.js';
import { contentFingerprint, findDuplicate } from '../consolidation/dedupe.js';
import { similarityTokens } from '../consolidation/similarity.js';
import { extractEntities } from '../../text/entities.js';
import type { Embedder } from '../../ports/embedder.js';
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
import type { QueuedWrite } from '../../ports/write-queue.js';
import type { Logger } from '../../logger.js';
import type { Clock } from '../clock.js';
import { contentCues, mayContradict, type ContentCues } from './subjects.js';
import { entityText, screenedText, type WriteAnalysis, type WriteAnalysisOptions } from './write-analysis.js';

export interface PlannerDeps {
  memories: Pick<MemoryStore, 'getMany' | 'getSettings' | 'findCandidates'>;
  clock: Clock;
  logger: Logger;
  embedder?: Embedder | null | undefined;
  contradictionDetector?: ContradictionDetector | null | undefined;
  /** What the write analyses include (whether entities came with them). */
  analysisOptions: WriteAnalysisOptions;
  candidateLimit: number;
}

export type ConsolidationPlan = Parameters<MemoryStore['commitConsolidation']>[1];

export interface ConsolidationPlanner {
  /** The batch's commit and how many writes it applies; `analysed[i]` is the analysis of `writes[i]`. */
  plan(tenantId: string, writes: QueuedWrite[], analysed: readonly WriteAnalysis[]): Promise<{ plan: ConsolidationPlan; applied: number }>;
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

export function createConsolidationPlanner(deps: PlannerDeps): ConsolidationPlanner {
  const { analysisOptions, candidateLimit } = deps;
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
      const fromStore = await deps.memories.findCandidates(tenantId, {
        namespace,
        fingerprint,
        subjects: lookup,
        excludeIds: [self],
        limit: candidateLimit,
      });
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
        throw new ConsolidationConflictError(
          `memory ${w.memoryId} is at version ${m.record.committedVersion}, queued write is ${w.version}`,
        );
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
              set: {
                status: 'superseded',
                contradictionStatus: 'resolved',
                contradictionPolicy: policy,
                conflictsWith,
                supersededBy: w.memoryId,
              },
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
              set: {
                status: o.status,
                contradictionStatus: 'flagged',
                contradictionPolicy: policy,
                conflictsWith,
                supersededBy: o.supersededBy,
              },
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
        injectionPatterns: injection.patterns.map((p) => ({
          id: p.id,
          category: p.category,
          field: p.field,
          evidence: p.evidence,
          weight: p.weight,
        })),
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
      committedVersion: w.record.committedVersion,
    }));
    const indexRemovals = [...working.values()].filter((w) => w.indexed === 'remove').map((w) => w.record.id);
    return { plan: { ops, indexUpserts, indexRemovals, at }, applied };
  }

  async function embed(texts: string[]): Promise<(Float32Array | null)[]> {
    if (!deps.embedder || texts.length === 0) return texts.map(() => null);
    return deps.embedder.embed(texts);
  }

  return { plan };
}
