import type { OnboardingObserver } from '../onboarding.js';
import { createHash } from 'node:crypto';
import { AppError, notFound, validation } from '../../errors.js';
import type {
  ContradictionPolicy,
  MemoryContent,
  MemoryMetadata,
  MemoryPage,
  MemoryHitRecord,
  MemoryRecord,
  MemorySettings,
  MemoryStore,
  MemoryType,
  MemoryVersionRecord,
  Sensitivity,
} from '../../ports/memories.js';
import type { EnqueueRequest, EnqueueResult, WriteQueue, WriteReceipt } from '../../ports/write-queue.js';
import { DEFAULT_NAMESPACE } from '../../schemas/namespace.js';
import { assertNamespaceAllowed, mayUseNamespace } from '../../namespace-access.js';
import type { Clock } from '../clock.js';
import { canonicalJson, type AuditService, type RequestMeta } from '../audit.js';
import type { AuditActor } from '../../ports/audit.js';
import type { UsageService } from '../usage.js';
import { timeOrderedId } from '../time-ordered-id.js';
import type { ConsolidationTrigger } from './consolidation-trigger.js';
import { createBulkDelete, type BulkDelete } from './bulk-delete.js';
import { memoryFilterQuery, type MemoryFilters } from './memory-filters.js';

/** Who is calling: the API key's tenant and the namespaces it may use (null = all). */
export interface MemoryCaller {
  tenantId: string;
  namespaces: readonly string[] | null;
}

/** A create or full update as the API accepts it (docs/decisions.md#memory-writes). */
export interface MemoryWriteInput {
  title?: string | undefined;
  content: string;
  tags?: string[] | undefined;
  sensitivity?: Sensitivity | undefined;
  type?: MemoryType | undefined;
  namespace?: string | undefined;
  agentId?: string | null | undefined;
  metadata?: MemoryMetadata | undefined;
}

export interface WriteOptions {
  idempotencyKey?: string | undefined;
  /** `If-Match`: the version the writer saw (update and rollback). */
  ifMatch?: number | undefined;
}

export interface MemoryListFilters extends MemoryFilters {
  limit: number;
  offset: number;
}

/** A search hit resolved to the memory it names (the seam for the retrieval issue's search route). */
export interface ResolvedHit {
  memory: MemoryHitRecord;
  score: number;
}

export interface MemoryService {
  /** Queues a new memory: durable before it returns; the record is readable at once (dirty). */
  create(caller: MemoryCaller, input: MemoryWriteInput, options?: WriteOptions): Promise<WriteReceipt & { replayed: boolean }>;
  /** Queues a full update against the current version (412 on a stale If-Match). */
  update(
    caller: MemoryCaller,
    memoryId: string,
    input: MemoryWriteInput,
    options?: WriteOptions,
  ): Promise<WriteReceipt & { replayed: boolean }>;
  /** Queues a rollback: a new version equal to `targetVersion`, through the same pipeline. */
  rollback(
    caller: MemoryCaller,
    memoryId: string,
    targetVersion: number,
    options?: WriteOptions,
  ): Promise<WriteReceipt & { replayed: boolean }>;
  get(caller: MemoryCaller, memoryId: string): Promise<MemoryRecord>;
  list(caller: MemoryCaller, filters: MemoryListFilters): Promise<MemoryPage>;
  versions(caller: MemoryCaller, memoryId: string): Promise<MemoryVersionRecord[]>;
  version(caller: MemoryCaller, memoryId: string, version: number): Promise<MemoryVersionRecord>;
  /** Deletes for good, from reads, lists and every index at once; recorded in the tenant's audit log. */
  delete(caller: MemoryCaller, memoryId: string, by: AuditedBy): Promise<void>;
  /** Deletion of many memories by ids, filter or all (the portal): preview, or one bounded batch per call. */
  bulkDelete: BulkDelete;
  /**
   * Turns search hits into memories the caller may see: drops ids that no longer exist, are in a
   * namespace the key may not use, or are not consolidated; keeps the hits' order and scores.
   */
  resolveHits(caller: MemoryCaller, hits: readonly { memoryId: string; score: number }[]): Promise<ResolvedHit[]>;
  settings(tenantId: string): Promise<MemorySettings>;
  /** Changes the tenant's settings; a change is recorded in the tenant's audit log. */
  updateSettings(tenantId: string, settings: { contradictionPolicy: ContradictionPolicy }, by: AuditedBy): Promise<MemorySettings>;
}

/** Who asked for a change the audit log records, and from where. */
export interface AuditedBy extends RequestMeta {
  actor: AuditActor;
}

export interface MemoryServiceDeps {
  memories: MemoryStore;
  queue: WriteQueue;
  usage: UsageService;
  clock: Clock;
  /** Largest accepted `content`, in UTF-8 bytes (MEMORY_CONTENT_MAX_BYTES); above it → 413. */
  contentMaxBytes: number;
  /** Told of every accepted write, so that a drain of the tenant gets scheduled (never throws). */
  consolidationTrigger?: Pick<ConsolidationTrigger, 'queued'>;
  /** Where deletions and settings changes are recorded. */
  audit: Pick<AuditService, 'record'>;
  /** Told of every accepted write (the tenant's onboarding checklist); never throws. */
  onboarding?: OnboardingObserver;
  /** How long an Idempotency-Key is remembered (default 24 h). */
  idempotencyTtlMs?: number;
  /**
   * New memory ids. Default: time-ordered UUIDs (v7). Every table and index keyed by memory id
   * (memories, versions, the memory-id indexes of queued writes and subjects) then grows at its right edge instead of at random pages, which
   * makes a consolidated batch's commit cheaper than with random (v4) ids (figures: docs/performance.md#time-ordered-memory-ids).
   */
  newId?: () => string;
}

/** SHA-256 of the request's canonical JSON (key order does not matter). */
function requestHash(parts: unknown): string {
  return createHash('sha256').update(canonicalJson(parts), 'utf8').digest('hex');
}

export function createMemoryService(deps: MemoryServiceDeps): MemoryService {
  const ttl = deps.idempotencyTtlMs ?? 24 * 3600 * 1000;
  const newId = deps.newId ?? timeOrderedId;

  function visible<M extends Pick<MemoryRecord, 'namespace'>>(caller: MemoryCaller, m: M | null): m is M {
    return m !== null && mayUseNamespace(caller.namespaces, m.namespace);
  }

  function toContent(input: MemoryWriteInput): MemoryContent {
    const bytes = Buffer.byteLength(input.content, 'utf8');
    if (bytes > deps.contentMaxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `content is ${bytes} bytes; the limit is ${deps.contentMaxBytes} bytes`);
    }
    if (input.content.trim() === '') throw validation('content', 'must not be empty');
    return {
      title: input.title ?? '',
      content: input.content,
      tags: [...new Set(input.tags ?? [])],
      type: input.type ?? 'episodic',
      agentId: input.agentId ?? null,
      metadata: input.metadata ?? {},
      writerSensitivity: input.sensitivity ?? null,
    };
  }

  async function enqueue(
    caller: MemoryCaller,
    build: (common: Omit<EnqueueRequest, 'kind'>) => EnqueueRequest,
    hashParts: unknown,
    options: WriteOptions,
  ): Promise<WriteReceipt & { replayed: boolean }> {
    const now = deps.clock();
    const common = {
      memoryId: '',
      allowedNamespaces: caller.namespaces,
      idempotency: options.idempotencyKey
        ? { key: options.idempotencyKey, requestHash: requestHash(hashParts), expiresAt: new Date(now + ttl).toISOString() }
        : null,
      quota: await deps.usage.writeQuota(caller.tenantId),
      acceptedAt: new Date(now).toISOString(),
    };
    const result: EnqueueResult = await deps.queue.enqueue(caller.tenantId, build(common));
    switch (result.kind) {
      case 'accepted':
        deps.consolidationTrigger?.queued(caller.tenantId);
        await deps.onboarding?.(caller.tenantId, 'sent_first_memory');
        return { ...result.receipt, replayed: false };
      case 'replayed':
        return { ...result.receipt, replayed: true };
      case 'idempotency_mismatch':
        throw new AppError('CONFLICT', 'Idempotency-Key was already used with a different request');
      case 'not_found':
        throw notFound('memory');
      case 'version_mismatch':
        throw new AppError(
          'PRECONDITION_FAILED',
          `If-Match names version ${options.ifMatch}; the memory is at version ${result.currentVersion}`,
        );
      case 'target_version_not_found':
        throw notFound('version');
      case 'merged':
        throw new AppError('CONFLICT', `this memory was merged into memory ${result.mergedInto} as a duplicate; write to that one`);
      case 'namespace_mismatch':
        throw validation('namespace', `a memory cannot change namespace (it is in '${result.current}')`);
      case 'quota_exceeded':
        throw deps.usage.quotaExceeded(result.limit);
    }
  }

  async function visibleMemory(caller: MemoryCaller, memoryId: string): Promise<MemoryRecord> {
    const m = await deps.memories.get(caller.tenantId, memoryId);
    if (!visible(caller, m)) throw notFound('memory');
    return m;
  }

  return {
    async create(caller, input, options = {}) {
      const namespace = input.namespace ?? DEFAULT_NAMESPACE;
      assertNamespaceAllowed(caller.namespaces, namespace);
      const content = toContent(input);
      const memoryId = newId();
      return enqueue(
        caller,
        (common) => ({ ...common, kind: 'create', memoryId, namespace, content }),
        { op: 'create', namespace, content },
        options,
      );
    },

    async update(caller, memoryId, input, options = {}) {
      if (input.namespace !== undefined) assertNamespaceAllowed(caller.namespaces, input.namespace);
      const content = toContent(input);
      return enqueue(
        caller,
        (common) => ({
          ...common,
          kind: 'update',
          memoryId,
          content,
          namespace: input.namespace ?? null,
          ifMatch: options.ifMatch ?? null,
        }),
        { op: 'update', memoryId, namespace: input.namespace, content, ifMatch: options.ifMatch },
        options,
      );
    },

    async rollback(caller, memoryId, targetVersion, options = {}) {
      return enqueue(
        caller,
        (common) => ({ ...common, kind: 'rollback', memoryId, targetVersion, ifMatch: options.ifMatch ?? null }),
        { op: 'rollback', memoryId, targetVersion, ifMatch: options.ifMatch },
        options,
      );
    },

    async get(caller, memoryId) {
      const m = await visibleMemory(caller, memoryId);
      await deps.usage.recordRead(caller.tenantId);
      return m;
    },

    async list(caller, f) {
      const query = memoryFilterQuery(caller.namespaces, f);
      await deps.usage.recordRead(caller.tenantId);
      return deps.memories.list(caller.tenantId, { ...query, limit: f.limit, offset: f.offset });
    },

    async versions(caller, memoryId) {
      await visibleMemory(caller, memoryId);
      await deps.usage.recordRead(caller.tenantId);
      return deps.memories.listVersions(caller.tenantId, memoryId);
    },

    async version(caller, memoryId, version) {
      await visibleMemory(caller, memoryId);
      await deps.usage.recordRead(caller.tenantId);
      const v = await deps.memories.getVersion(caller.tenantId, memoryId, version);
      if (!v) throw notFound('version');
      return v;
    },

    async delete(caller, memoryId, by) {
      const memory = await visibleMemory(caller, memoryId);
      if (!(await deps.memories.delete(caller.tenantId, memoryId))) throw notFound('memory');
      // What was deleted is gone for good: the log keeps who, when and which id, never the content.
      await deps.audit.record({
        tenantId: caller.tenantId,
        type: 'memory.delete',
        ...by,
        target: { type: 'memory', id: memoryId },
        details: { namespace: memory.namespace, version: memory.version },
      });
    },

    bulkDelete: createBulkDelete({ memories: deps.memories, audit: deps.audit }),

    async resolveHits(caller, hits) {
      const found = await deps.memories.getHits(
        caller.tenantId,
        hits.map((h) => h.memoryId),
      );
      const byId = new Map(found.filter((m) => visible(caller, m) && m.committedVersion > 0).map((m) => [m.id, m]));
      const out: ResolvedHit[] = [];
      for (const h of hits) {
        const memory = byId.get(h.memoryId);
        if (memory) out.push({ memory, score: h.score });
      }
      return out;
    },

    settings: (tenantId) => deps.memories.getSettings(tenantId),
    async updateSettings(tenantId, settings, by) {
      const before = await deps.memories.getSettings(tenantId);
      const after = await deps.memories.putSettings(tenantId, settings, new Date(deps.clock()).toISOString());
      if (before.contradictionPolicy !== after.contradictionPolicy) {
        await deps.audit.record({
          tenantId,
          type: 'memory.settings_change',
          ...by,
          target: { type: 'memory_settings', id: tenantId },
          details: { old: { contradiction_policy: before.contradictionPolicy }, new: { contradiction_policy: after.contradictionPolicy } },
        });
      }
      return after;
    },
  };
}
