/**
 * Storage port of the write queue: the durable queue of accepted memory writes that consolidation
 * drains. Accepting a write is ONE atomic step (`enqueue`): the queued write, the memory row's head
 * (a new dirty row for a create), the reserved version number, `pendingCount`, the idempotency
 * record, the usage counters and the quota check all commit together or not at all, so a 202 is only
 * ever answered for a write that is already durable.
 *
 * Writes are applied in queue order (`id`, increasing); per memory, versions are reserved in the same
 * order, so concurrent writes to one memory are applied in the order they were accepted.
 */
import type { MemoryContent, Sensitivity } from './memories.js';
import { mayUseNamespace } from '../namespace-access.js';

export type WriteKind = 'create' | 'update' | 'rollback';

export interface QueuedWrite {
  /** Queue position: increasing in acceptance order (per tenant at least). */
  id: number;
  tenantId: string;
  memoryId: string;
  namespace: string;
  /** The version this write becomes when applied. */
  version: number;
  kind: WriteKind;
  /** Full content of the new version (for a rollback: the target version's content). */
  content: MemoryContent;
  /** For a rollback, the target version. */
  rolledBackTo: number | null;
  /** RFC 3339. */
  acceptedAt: string;
}

/** Plan limits checked inside the enqueue transaction; null = unlimited. */
export interface WriteQuota {
  /** Usage period the write counts in (`YYYY-MM`). */
  period: string;
  writes: number | null;
  storageBytes: number | null;
  memories: number | null;
}

export interface IdempotencyClaim {
  key: string;
  /** SHA-256 of the request (operation, path, body). Same key + other hash = mismatch. */
  requestHash: string;
  /** RFC 3339; after this the key may be reused. */
  expiresAt: string;
}

interface EnqueueCommon {
  memoryId: string;
  /** Namespaces the caller may touch (null = all): a memory in another one answers not_found. */
  allowedNamespaces: readonly string[] | null;
  idempotency: IdempotencyClaim | null;
  quota: WriteQuota;
  /** RFC 3339. */
  acceptedAt: string;
}

export interface CreateRequest extends EnqueueCommon {
  kind: 'create';
  namespace: string;
  content: MemoryContent;
}

export interface UpdateRequest extends EnqueueCommon {
  kind: 'update';
  content: MemoryContent;
  /** When given, the memory must live in this namespace (namespaces never change). */
  namespace: string | null;
  /** `If-Match`: the head version the writer saw, or null. */
  ifMatch: number | null;
}

export interface RollbackRequest extends EnqueueCommon {
  kind: 'rollback';
  /** A committed version of the memory. */
  targetVersion: number;
  ifMatch: number | null;
}

export type EnqueueRequest = CreateRequest | UpdateRequest | RollbackRequest;

/** What a caller is told about an accepted write (and what an idempotent replay repeats). */
export interface WriteReceipt {
  memoryId: string;
  kind: WriteKind;
  version: number;
  /** The memory's queued writes right after this one was accepted. */
  pendingCount: number;
  rolledBackTo: number | null;
}

export type EnqueueResult =
  | { kind: 'accepted'; receipt: WriteReceipt }
  /** The idempotency key was seen with the same request: the first receipt, nothing new queued. */
  | { kind: 'replayed'; receipt: WriteReceipt }
  /** The idempotency key was seen with a different request. */
  | { kind: 'idempotency_mismatch' }
  | { kind: 'not_found' }
  | { kind: 'version_mismatch'; currentVersion: number }
  | { kind: 'target_version_not_found' }
  /** The memory was merged into another one as a duplicate; write to that one instead. */
  | { kind: 'merged'; mergedInto: string }
  | { kind: 'namespace_mismatch'; current: string }
  | { kind: 'quota_exceeded'; limit: 'writes' | 'storage' | 'memories' };

export interface WriteQueue {
  enqueue(tenantId: string, request: EnqueueRequest): Promise<EnqueueResult>;
  /** The tenant's oldest queued writes, in queue order. */
  peek(tenantId: string, limit: number): Promise<QueuedWrite[]>;
  /** Tenants that have queued writes (oldest queued write first). */
  tenantsWithPending(limit: number): Promise<string[]>;
  /** Queued writes of the tenant. */
  pendingCount(tenantId: string): Promise<number>;
}

/** Bytes a memory's content counts against storage: UTF-8 of title, content, tags and metadata. */
export function memorySizeBytes(content: Pick<MemoryContent, 'title' | 'content' | 'tags' | 'metadata'>): number {
  return (
    Buffer.byteLength(content.title, 'utf8') +
    Buffer.byteLength(content.content, 'utf8') +
    Buffer.byteLength(JSON.stringify(content.tags), 'utf8') +
    Buffer.byteLength(JSON.stringify(content.metadata), 'utf8')
  );
}

/**
 * Until a write is consolidated its content is unclassified: a memory shows the writer's sensitivity,
 * or `high` when the writer gave none (unknown is treated as sensitive, never as harmless).
 */
export function provisionalSensitivity(writer: Sensitivity | null): Sensitivity {
  return writer ?? 'high';
}

/*
 * The acceptance rules every WriteQueue adapter applies, in this order, inside its transaction. They are
 * pure: each adapter reads what they need from its own store and acts on the answer.
 */

/** A request whose Idempotency-Key was seen and has not expired: replayed or refused; null = proceed. */
export function idempotencyOutcome(
  req: EnqueueRequest,
  seen: { requestHash: string; expiresAt: string; receipt: () => WriteReceipt } | null,
): EnqueueResult | null {
  if (!req.idempotency || !seen || seen.expiresAt <= req.acceptedAt) return null;
  if (seen.requestHash !== req.idempotency.requestHash) return { kind: 'idempotency_mismatch' };
  return { kind: 'replayed', receipt: seen.receipt() };
}

/** Why an update or rollback cannot go to the memory's head as it is now; null = it can. */
export function headRefusal(
  req: UpdateRequest | RollbackRequest,
  head: { namespace: string; headVersion: number; mergedInto: string | null } | null,
): EnqueueResult | null {
  if (!head || !mayUseNamespace(req.allowedNamespaces, head.namespace)) return { kind: 'not_found' };
  if (head.mergedInto !== null) return { kind: 'merged', mergedInto: head.mergedInto };
  if (req.ifMatch !== null && req.ifMatch !== head.headVersion) return { kind: 'version_mismatch', currentVersion: head.headVersion };
  if (req.kind === 'update' && req.namespace !== null && req.namespace !== head.namespace) return { kind: 'namespace_mismatch', current: head.namespace };
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
): EnqueueResult | null {
  if (added.memories > 0 && quota.memories !== null && totals.memoryCount + added.memories > quota.memories) return { kind: 'quota_exceeded', limit: 'memories' };
  if (added.bytes > 0 && quota.storageBytes !== null && totals.storageBytes + added.bytes > quota.storageBytes) return { kind: 'quota_exceeded', limit: 'storage' };
  return null;
}
