/**
 * Break-glass requests: a member asks for time-boxed elevated access; a different owner or admin of
 * the same tenant approves or denies. An approved grant ends by itself at `expiresAt` (checked by
 * time; `expired` is written lazily when observed). Times are RFC 3339 strings (`Date#toISOString`, so they compare as strings).
 */
export type BreakGlassStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface BreakGlassRecord {
  id: string;
  tenantId: string;
  requesterId: string;
  reason: string;
  durationMinutes: number;
  status: BreakGlassStatus;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  /** Set on approval: decidedAt + durationMinutes. */
  expiresAt: string | null;
}

/** A request `endFor` ended, as it is now, and the status it had before. */
export interface EndedRequest {
  record: BreakGlassRecord;
  previous: 'pending' | 'approved';
}

export type DecideResult = { ok: true; record: BreakGlassRecord } | { ok: false; reason: 'not_found' | 'already_decided' };

export interface BreakGlassStore {
  create(record: BreakGlassRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<BreakGlassRecord | null>;
  /** Newest first; `requesterId` narrows to one requester. */
  list(tenantId: string, filter?: { requesterId?: string }): Promise<BreakGlassRecord[]>;
  /** Moves a pending request to approved or denied, atomically (only from pending). */
  decide(
    tenantId: string,
    id: string,
    decision: { status: 'approved' | 'denied'; decidedBy: string; decidedAt: string; expiresAt: string | null },
  ): Promise<DecideResult>;
  /**
   * The requester's approved grant that is live at `now` and was requested at or after
   * `requestedSince` (the start of their current role: a grant asked for under an earlier role or an
   * earlier membership never counts), if any.
   */
  activeGrant(tenantId: string, userId: string, now: string, requestedSince: string): Promise<BreakGlassRecord | null>;
  /**
   * Ends every request of `requesterId` in the tenant that could still grant something, atomically per
   * request: pending ones become `denied` (decided by `end.by` at `end.at`), approved ones still live
   * at `end.at` become `expired` with `expiresAt` = `end.at`. Returns the ones it changed, with the
   * status each had before.
   */
  endFor(tenantId: string, requesterId: string, end: { at: string; by: string }): Promise<EndedRequest[]>;
  /** Marks approved grants past their expiry as `expired`; returns the ones it changed. */
  expireDue(tenantId: string, now: string): Promise<BreakGlassRecord[]>;
}
