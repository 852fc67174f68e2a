import type { AuditEventRecord } from '../../server/ports/audit.js';
import type { BreakGlassRecord } from '../../server/ports/break-glass.js';
import type { AuditVerification } from '../../server/services/audit.js';
import type { SessionTokens, StepUpGrant } from '../../server/services/auth.js';

/** The `/auth` routes' wire form of what the auth, break-glass and audit services return (snake_case, docs/decisions.md#sign-in-and-tokens). */

export const toTokenResponse = (t: SessionTokens) => ({
  access_token: t.accessToken,
  refresh_token: t.refreshToken,
  token_type: t.tokenType,
  expires_in: t.expiresIn,
  user_id: t.userId,
  tenant_id: t.tenantId,
});

export const toStepUpResponse = (g: StepUpGrant) => ({ step_up_token: g.stepUpToken, expires_in: g.expiresIn, action: g.action });

export const fromBreakGlassRequestBody = (body: { reason: string; duration_minutes: number }) => ({
  reason: body.reason,
  durationMinutes: body.duration_minutes,
});

export const toBreakGlassView = (r: BreakGlassRecord) => ({
  id: r.id,
  tenant_id: r.tenantId,
  requester_id: r.requesterId,
  reason: r.reason,
  duration_minutes: r.durationMinutes,
  status: r.status,
  created_at: r.createdAt,
  decided_at: r.decidedAt,
  decided_by: r.decidedBy,
  expires_at: r.expiresAt,
});

export const toAuditEventView = (e: AuditEventRecord) => ({
  id: e.id,
  tenant_id: e.tenantId,
  seq: e.seq,
  type: e.type,
  actor: { user_id: e.actor.userId ?? null, key_id: e.actor.keyId ?? null },
  ip: e.ip,
  user_agent: e.userAgent,
  target: e.target,
  details: e.details,
  created_at: e.createdAt,
  prev_hash: e.prevHash,
  hash: e.hash,
});

export const toAuditVerification = (v: AuditVerification) => ({
  ok: v.ok,
  checked: v.checked,
  broken_at: v.brokenAt ?? null,
  reason: v.reason ?? null,
});
