import { randomUUID } from 'node:crypto';
import { AppError, notFound } from '../errors.js';
import type { BreakGlassStore, BreakGlassRecord } from '../ports/break-glass.js';
import type { MembershipRecord } from '../ports/tenants.js';
import type { AuditService, RequestMeta } from './audit.js';
import { isoAt, systemClock, type Clock } from './clock.js';
import { roleHas } from './roles.js';
import type { TenantActor } from './tenants.js';

/**
 * Break-glass: time-boxed emergency elevation. A member requests it with a reason and a duration;
 * a different owner or admin of the same tenant (by their own role, not by a break-glass grant)
 * approves or denies. An approved grant adds `breakGlassRole`'s permissions until it expires, which
 * is decided by time on every request; the `expired` status and audit event are written lazily. A
 * grant belongs to the role it was requested under: a role change or removal ends it (`endFor`).
 */
export interface BreakGlassService {
  request(actor: TenantActor, input: { reason: string; durationMinutes: number }, meta: RequestMeta): Promise<BreakGlassRecord>;
  approve(actor: TenantActor, id: string, meta: RequestMeta): Promise<BreakGlassRecord>;
  deny(actor: TenantActor, id: string, meta: RequestMeta): Promise<BreakGlassRecord>;
  /** Approvers see every request of the tenant; others only their own. Newest first. */
  list(actor: TenantActor): Promise<BreakGlassRecord[]>;
  /**
   * The member's live grant, if any: only one requested since their current role was set
   * (`roleSince`) counts, so a grant never outlives the role or the membership it was asked for under.
   */
  activeGrant(membership: Pick<MembershipRecord, 'tenantId' | 'userId' | 'roleSince'>): Promise<BreakGlassRecord | null>;
  /**
   * Ends the user's pending requests and live grants in the tenant because their role changed or they
   * left: each is audited as `break_glass.revoke` (actor: who changed the membership).
   */
  endFor(
    tenantId: string,
    userId: string,
    cause: { actorId: string; reason: 'role_change' | 'member_removed' },
    meta: RequestMeta,
  ): Promise<BreakGlassRecord[]>;
}

export function createBreakGlassService(deps: {
  breakGlass: BreakGlassStore;
  audit: AuditService;
  maxMinutes: number;
  clock?: Clock;
}): BreakGlassService {
  const { breakGlass, audit, maxMinutes } = deps;
  const now = deps.clock ?? systemClock;

  const canApprove = (actor: TenantActor) => roleHas(actor.role, 'break_glass:approve');

  /** Presents an approved grant past its expiry as expired even before the lazy write. */
  const present = (r: BreakGlassRecord, at: string): BreakGlassRecord =>
    r.status === 'approved' && r.expiresAt !== null && r.expiresAt <= at ? { ...r, status: 'expired' } : r;

  async function expireDue(tenantId: string) {
    const at = isoAt(now());
    for (const r of await breakGlass.expireDue(tenantId, at)) {
      await audit.record({
        tenantId,
        type: 'break_glass.expire',
        actor: {},
        target: { type: 'break_glass', id: r.id },
        details: { requester_id: r.requesterId, expired_at: r.expiresAt },
      });
    }
  }

  async function decide(actor: TenantActor, id: string, status: 'approved' | 'denied', meta: RequestMeta) {
    const current = await breakGlass.get(actor.tenantId, id);
    if (!current) throw notFound('break-glass request');
    if (!canApprove(actor)) throw new AppError('FORBIDDEN', 'only an owner or admin of the tenant may decide break-glass requests');
    if (current.requesterId === actor.userId)
      throw new AppError('FORBIDDEN', 'a break-glass request must be decided by someone other than its requester');
    const decidedAtMs = now();
    const expiresAt = status === 'approved' ? isoAt(decidedAtMs + current.durationMinutes * 60_000) : null;
    const result = await breakGlass.decide(actor.tenantId, id, {
      status,
      decidedBy: actor.userId,
      decidedAt: isoAt(decidedAtMs),
      expiresAt,
    });
    if (!result.ok) {
      if (result.reason === 'not_found') throw notFound('break-glass request');
      throw new AppError('CONFLICT', `break-glass request is already ${current.status}`);
    }
    await audit.record({
      tenantId: actor.tenantId,
      type: status === 'approved' ? 'break_glass.approve' : 'break_glass.deny',
      actor: { userId: actor.userId },
      ...meta,
      target: { type: 'break_glass', id },
      details: { requester_id: current.requesterId, duration_minutes: current.durationMinutes, expires_at: expiresAt },
    });
    return result.record;
  }

  return {
    async request(actor, input, meta) {
      const reason = input.reason.trim();
      if (!reason)
        throw new AppError('VALIDATION_FAILED', 'reason: must not be empty', {
          fields: [{ field: 'reason', message: 'must not be empty' }],
        });
      if (!Number.isInteger(input.durationMinutes) || input.durationMinutes < 1 || input.durationMinutes > maxMinutes) {
        const message = `must be an integer from 1 to ${maxMinutes}`;
        throw new AppError('VALIDATION_FAILED', `duration_minutes: ${message}`, { fields: [{ field: 'duration_minutes', message }] });
      }
      const record: BreakGlassRecord = {
        id: randomUUID(),
        tenantId: actor.tenantId,
        requesterId: actor.userId,
        reason,
        durationMinutes: input.durationMinutes,
        status: 'pending',
        createdAt: isoAt(now()),
        decidedAt: null,
        decidedBy: null,
        expiresAt: null,
      };
      await breakGlass.create(record);
      await audit.record({
        tenantId: actor.tenantId,
        type: 'break_glass.request',
        actor: { userId: actor.userId },
        ...meta,
        target: { type: 'break_glass', id: record.id },
        details: { reason, duration_minutes: input.durationMinutes },
      });
      return record;
    },

    approve: (actor, id, meta) => decide(actor, id, 'approved', meta),
    deny: (actor, id, meta) => decide(actor, id, 'denied', meta),

    async list(actor) {
      await expireDue(actor.tenantId);
      const at = isoAt(now());
      const records = await breakGlass.list(actor.tenantId, canApprove(actor) ? {} : { requesterId: actor.userId });
      return records.map((r) => present(r, at));
    },

    activeGrant: (m) => breakGlass.activeGrant(m.tenantId, m.userId, isoAt(now()), m.roleSince),

    async endFor(tenantId, userId, cause, meta) {
      const ended = await breakGlass.endFor(tenantId, userId, { at: isoAt(now()), by: cause.actorId });
      for (const { record, previous } of ended) {
        await audit.record({
          tenantId,
          type: 'break_glass.revoke',
          actor: { userId: cause.actorId },
          ...meta,
          target: { type: 'break_glass', id: record.id },
          details: { requester_id: userId, reason: cause.reason, previous_status: previous },
        });
      }
      return ended.map((e) => e.record);
    },
  };
}
