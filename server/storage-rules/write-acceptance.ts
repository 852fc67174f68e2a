/**
 * Accepting a memory write: the one rule both write-queue adapters apply inside their transaction.
 * `decideWrite` walks the steps in order — idempotency, write quota, the create/update/rollback
 * branch, head refusal, memory and storage limits — over a read-only view of the store and returns
 * either the answer (a replay or a refusal: nothing to write) or the accepted write's effects: the
 * memory head to insert or move, the queued write, the usage delta and the idempotency record.
 */
import type { MemoryContent, MemoryVersionRecord, Sensitivity } from '../ports/memories.js';
import type {
  EnqueueRequest,
  EnqueueResult,
  QueuedWrite,
  RollbackRequest,
  UpdateRequest,
  WriteQuota,
  WriteReceipt,
} from '../ports/write-queue.js';
import { mayUseNamespace } from '../namespace-access.js';
import { newMemory, provisionalSensitivity, type NewMemory } from './new-memory.js';

/** Bytes a memory's content counts against storage: UTF-8 of title, content, tags and metadata. */
export function memorySizeBytes(content: Pick<MemoryContent, 'title' | 'content' | 'tags' | 'metadata'>): number {
  return (
    Buffer.byteLength(content.title, 'utf8') +
    Buffer.byteLength(content.content, 'utf8') +
    Buffer.byteLength(JSON.stringify(content.tags), 'utf8') +
    Buffer.byteLength(JSON.stringify(content.metadata), 'utf8')
  );
}

/** An Idempotency-Key record as stored. */
export interface SeenIdempotency {
  requestHash: string;
  /** RFC 3339. */
  expiresAt: string;
  /** The first answer's receipt (read only on a replay). */
  receipt: () => WriteReceipt;
}

/** What an update or rollback needs of the memory's row. */
export interface MemoryHead {
  namespace: string;
  headVersion: number;
  pendingCount: number;
  sizeBytes: number;
  mergedInto: string | null;
}

/** The content of a committed version a rollback returns to. */
export type VersionContent = Pick<MemoryVersionRecord, 'title' | 'content' | 'tags' | 'type' | 'agentId' | 'metadata' | 'sensitivity'>;

/**
 * The store as one write sees it, read only when a step needs it (an unlimited plan never reads its
 * counters). For a write that shares a transaction with others (the embedded group commit), the
 * counters include what the writes accepted before it in that transaction added.
 */
export interface WriteSnapshot {
  /** The tenant's record of this Idempotency-Key, or null (asked only when the request carries one). */
  idempotency(key: string): SeenIdempotency | null;
  /** Writes counted in the period so far (asked only when writes are limited). */
  writesUsed(period: string): number;
  /** Memories and bytes the tenant holds so far (asked only when memories or storage are limited). */
  totals(): { memoryCount: number; storageBytes: number };
  /** The memory's head, or null when it does not exist (updates and rollbacks). */
  head(memoryId: string): MemoryHead | null;
  /** A committed version's content, or null (rollbacks, after the head is accepted). */
  versionContent(memoryId: string, version: number): VersionContent | null;
}

/** What an accepted write changes in the tenant's usage counters (writes always count one). */
export interface UsageDelta {
  period: string;
  memories: number;
  bytes: number;
}

export interface AcceptedWrite {
  receipt: WriteReceipt;
  /** The memory row: a new one for a create, or its head moved forward from `fromVersion`. */
  head: { kind: 'insert'; memory: NewMemory } | { kind: 'move'; fromVersion: number; sizeBytes: number };
  /** The head's provisional sensitivity (`provisionalSensitivity` of the content's writer). */
  sensitivity: Sensitivity;
  /** The queued write (its queue position is the store's). */
  queued: Omit<QueuedWrite, 'id' | 'tenantId'>;
  usage: UsageDelta;
  /** The Idempotency-Key record to store with this receipt, or null. */
  idempotency: { key: string; requestHash: string; receipt: WriteReceipt; createdAt: string; expiresAt: string } | null;
}

export type WriteDecision =
  /** Answered without writing anything: a replay or a refusal. */
  { kind: 'answer'; result: Exclude<EnqueueResult, { kind: 'accepted' }> } | { kind: 'accept'; write: AcceptedWrite };

/** A request whose Idempotency-Key was seen and has not expired: replayed or refused; null = proceed. */
export function idempotencyOutcome(req: EnqueueRequest, seen: SeenIdempotency | null): Exclude<EnqueueResult, { kind: 'accepted' }> | null {
  if (!req.idempotency || !seen || seen.expiresAt <= req.acceptedAt) return null;
  if (seen.requestHash !== req.idempotency.requestHash) return { kind: 'idempotency_mismatch' };
  return { kind: 'replayed', receipt: seen.receipt() };
}

/** Why an update or rollback cannot go to the memory's head as it is now; null = it can. */
export function headRefusal(
  req: UpdateRequest | RollbackRequest,
  head: Pick<MemoryHead, 'namespace' | 'headVersion' | 'mergedInto'> | null,
): Exclude<EnqueueResult, { kind: 'accepted' }> | null {
  if (!head || !mayUseNamespace(req.allowedNamespaces, head.namespace)) return { kind: 'not_found' };
  if (head.mergedInto !== null) return { kind: 'merged', mergedInto: head.mergedInto };
  if (req.ifMatch !== null && req.ifMatch !== head.headVersion) return { kind: 'version_mismatch', currentVersion: head.headVersion };
  if (req.kind === 'update' && req.namespace !== null && req.namespace !== head.namespace)
    return { kind: 'namespace_mismatch', current: head.namespace };
  return null;
}

/**
 * The memory or storage limit a write would pass: `added` memories (1 for a create) and bytes (the
 * growth; shrinking is always allowed), against the tenant's totals so far. Null = within the plan.
 */
export function sizeLimitExceeded(
  quota: WriteQuota,
  totals: { memoryCount: number; storageBytes: number },
  added: { memories: number; bytes: number },
): Extract<EnqueueResult, { kind: 'quota_exceeded' }> | null {
  if (added.memories > 0 && quota.memories !== null && totals.memoryCount + added.memories > quota.memories)
    return { kind: 'quota_exceeded', limit: 'memories' };
  if (added.bytes > 0 && quota.storageBytes !== null && totals.storageBytes + added.bytes > quota.storageBytes)
    return { kind: 'quota_exceeded', limit: 'storage' };
  return null;
}

/** A rollback writes the target version's content again, its effective sensitivity as the writer's. */
function rolledBackContent(v: VersionContent): MemoryContent {
  return {
    title: v.title,
    content: v.content,
    tags: v.tags,
    type: v.type,
    agentId: v.agentId,
    metadata: v.metadata,
    writerSensitivity: v.sensitivity,
  };
}

/** The acceptance rule: see the file's comment. */
export function decideWrite(tenantId: string, req: EnqueueRequest, store: WriteSnapshot): WriteDecision {
  if (req.idempotency) {
    const replay = idempotencyOutcome(req, store.idempotency(req.idempotency.key));
    if (replay) return { kind: 'answer', result: replay };
  }
  const q = req.quota;
  if (q.writes !== null && store.writesUsed(q.period) + 1 > q.writes)
    return { kind: 'answer', result: { kind: 'quota_exceeded', limit: 'writes' } };
  // Totals are read only when a limit needs them.
  const overLimit = (added: { memories: number; bytes: number }) =>
    q.memories !== null || q.storageBytes !== null ? sizeLimitExceeded(q, store.totals(), added) : null;

  let content: MemoryContent;
  let namespace: string;
  let version: number;
  let pendingCount: number;
  let rolledBackTo: number | null = null;
  let head: AcceptedWrite['head'];
  let added: { memories: number; bytes: number };
  if (req.kind === 'create') {
    content = req.content;
    namespace = req.namespace;
    const size = memorySizeBytes(content);
    added = { memories: 1, bytes: size };
    const refused = overLimit(added);
    if (refused) return { kind: 'answer', result: refused };
    version = 1;
    pendingCount = 1;
    head = { kind: 'insert', memory: newMemory(tenantId, req.memoryId, namespace, content, size, req.acceptedAt) };
  } else {
    const current = store.head(req.memoryId);
    const refused = headRefusal(req, current);
    if (refused || !current) return { kind: 'answer', result: refused ?? { kind: 'not_found' } };
    namespace = current.namespace;
    if (req.kind === 'update') {
      content = req.content;
    } else {
      const target = store.versionContent(req.memoryId, req.targetVersion);
      if (!target) return { kind: 'answer', result: { kind: 'target_version_not_found' } };
      content = rolledBackContent(target);
      rolledBackTo = req.targetVersion;
    }
    const size = memorySizeBytes(content);
    added = { memories: 0, bytes: size - current.sizeBytes };
    const overStorage = overLimit(added);
    if (overStorage) return { kind: 'answer', result: overStorage };
    version = current.headVersion + 1;
    pendingCount = current.pendingCount + 1;
    head = { kind: 'move', fromVersion: current.headVersion, sizeBytes: size };
  }
  const receipt: WriteReceipt = { memoryId: req.memoryId, kind: req.kind, version, pendingCount, rolledBackTo };
  return {
    kind: 'accept',
    write: {
      receipt,
      head,
      sensitivity: provisionalSensitivity(content.writerSensitivity),
      queued: { memoryId: req.memoryId, namespace, version, kind: req.kind, content, rolledBackTo, acceptedAt: req.acceptedAt },
      usage: { period: q.period, memories: added.memories, bytes: added.bytes },
      idempotency: req.idempotency
        ? {
            key: req.idempotency.key,
            requestHash: req.idempotency.requestHash,
            receipt,
            createdAt: req.acceptedAt,
            expiresAt: req.idempotency.expiresAt,
          }
        : null,
    },
  };
}
