import type { AuditFilter } from '../storage-rules/audit-filter.js';

/**
 * The append-only, hash-chained audit log of each tenant. Each event's `hash` covers a canonical
 * serialisation of the event including `seq` and `prevHash`; a per-tenant head (last seq and hash)
 * makes deleting the newest event detectable too.
 */
export interface AuditActor {
  userId?: string;
  keyId?: string;
}

export interface AuditTarget {
  type: string;
  id: string;
}

export interface AuditEventRecord {
  id: string;
  tenantId: string;
  /** 1, 2, 3… per tenant, without gaps. */
  seq: number;
  type: string;
  actor: AuditActor;
  ip: string | null;
  userAgent: string | null;
  target: AuditTarget | null;
  details: Record<string, unknown> | null;
  /** ISO 8601. */
  createdAt: string;
  /** The previous event's hash (64 zeros for the first). */
  prevHash: string;
  /** SHA-256 hex. */
  hash: string;
}

export interface AuditHead {
  seq: number;
  hash: string;
}

export interface AuditListQuery extends AuditFilter {
  limit: number;
  offset: number;
}

export interface AuditStore {
  /**
   * Appends one event, serialised per tenant: `build` receives the current head (null for an empty
   * log) and returns the complete event for seq head+1, which is stored together with the new head.
   * `build` must be synchronous and pure; an adapter may call it again if it lost a race.
   */
  append(tenantId: string, build: (head: AuditHead | null) => AuditEventRecord): Promise<AuditEventRecord>;
  /** Newest first; `total` counts the events the filter selects (see `storage-rules/audit-filter.ts`). */
  list(tenantId: string, query: AuditListQuery): Promise<{ events: AuditEventRecord[]; total: number }>;
  /** Oldest first: events with seq > afterSeq, at most `limit` (for verification). */
  range(tenantId: string, afterSeq: number, limit: number): Promise<AuditEventRecord[]>;
  head(tenantId: string): Promise<AuditHead | null>;
}
