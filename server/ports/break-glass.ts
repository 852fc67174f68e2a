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

export type DecideResult = { ok: true; record: BreakGlassRecord } | { ok: false; reason: 'not_found' | 'already_decided' };

export interface BreakGlassPort {
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
  /** The requester's approved grant that is live at `now`, if any. */
  activeGrant(tenantId: string, userId: string, now: string): Promise<BreakGlassRecord | null>;
  /** Marks approved grants past their expiry as `expired`; returns the ones it changed. */
  expireDue(tenantId: string, now: string): Promise<BreakGlassRecord[]>;
}
