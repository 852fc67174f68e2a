/**
 * Storage port of the write queue: the durable queue of accepted memory writes that consolidation
 * drains. Accepting a write is ONE atomic step (`enqueue`): the queued write, the memory row's head
 * (a new dirty row for a create), the reserved version number, `pendingCount`, the idempotency
 * record, the usage counters and the quota check all commit together or not at all, so a 202 is only
 * ever answered for a write that is already durable.
 *
 * Writes are applied in queue order (`id`, increasing); per memory, versions are reserved in the same
 * order, so concurrent writes to one memory are applied in the order they were accepted. What accepting
 * a write decides is `decideWrite` (server/storage-rules/write-acceptance.ts); adapters apply it.
 */
import type { MemoryContent } from './memories.js';

export type WriteKind = 'create' | 'update' | 'rollback';

export interface QueuedWrite {
  /** Queue position: increasing in acceptance order within the tenant (another tenant's are not comparable). */
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
