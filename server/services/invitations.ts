import { randomUUID } from 'node:crypto';
import { AppError, notFound } from '../errors.js';
import type { InvitationRecord, InvitationStore } from '../ports/invitations.js';
import type { TenantStore } from '../ports/tenants.js';
import type { UserStore } from '../ports/users.js';
import type { KeyedBudget } from './address-budget.js';
import type { AuditService, RequestMeta } from './audit.js';
import type { AuthService } from './auth.js';
import { isoAt, systemClock, type Clock } from './clock.js';
import { assertMayAssign, elevates, mayAssign, roleNames, type RoleName } from './roles.js';
import type { TenantActor } from './tenants.js';

/**
 * Invitations: people join a tenant only by accepting one. The tenant side (invite, list, cancel)
 * follows the actor's own base role; an invitation carries its inviter's authority, so it is void once
 * the inviter could no longer grant its role (checked when it is accepted).
 */
export interface InvitationsService {
  /**
   * Invites an email to the actor's tenant: the same answer whether or not the email has an account.
   * 409 when it belongs to a member already (membership is visible to the tenant anyway); 403 when a
   * pending invitation the actor could not have made is there (an owner invitation, for a non-owner);
   * 429 past the per-user or per-tenant budget.
   */
  invite(
    actor: TenantActor,
    input: { email: string; role: RoleName },
    stepUpToken: string | null,
    meta: RequestMeta,
  ): Promise<InvitationRecord>;
  /** The tenant's pending, unexpired invitations, oldest first. */
  tenantInvitations(actor: TenantActor): Promise<InvitationRecord[]>;
  /**
   * Withdraws a pending invitation of the actor's tenant: 404 for an unknown id or another tenant's,
   * 409 when no longer pending, 403 for an invitation with a role the actor could not grant.
   */
  cancelInvitation(actor: TenantActor, invitationId: string, meta: RequestMeta): Promise<InvitationRecord>;
  /** The signed-in user's pending, unexpired invitations (matched by their email), with tenant names. */
  pendingInvitations(userId: string): Promise<Array<InvitationRecord & { tenantName: string }>>;
  /** 409 when expired, used, cancelled, void (its inviter may no longer grant its role) or already a member. */
  acceptInvitation(userId: string, invitationId: string, meta: RequestMeta): Promise<{ tenantId: string; role: RoleName }>;
  declineInvitation(userId: string, invitationId: string, meta: RequestMeta): Promise<InvitationRecord>;
}

export interface InvitationsServiceDeps {
  tenants: Pick<TenantStore, 'get' | 'membership'>;
  users: Pick<UserStore, 'findById' | 'findByEmail'>;
  invitations: InvitationStore;
  audit: Pick<AuditService, 'record'>;
  stepUp: Pick<AuthService, 'verifyStepUp'>;
  /** Invitations per inviting user and per tenant (reserved before anything is looked up). */
  invitationBudgets: { perUser: KeyedBudget; perTenant: KeyedBudget };
  invitationTtlSeconds: number;
  clock?: Clock;
}

const notPending = () => new AppError('CONFLICT', 'this invitation was already accepted, declined or cancelled');

export function createInvitationsService(deps: InvitationsServiceDeps): InvitationsService {
  const { tenants, users, invitations, audit, stepUp } = deps;
  const now = deps.clock ?? systemClock;

  async function inviteeEmail(userId: string): Promise<string> {
    const user = await users.findById(userId);
    if (!user) throw notFound('invitation');
    return user.email;
  }

  return {
    async invite(actor, input, stepUpToken, meta) {
      assertMayAssign(actor.role, input.role);
      if (elevates(null, input.role)) await stepUp.verifyStepUp(stepUpToken, { ...actor, action: 'members.promote' });
      // Reserve before looking anything up: every attempt counts, whatever it finds.
      await deps.invitationBudgets.perUser.consume(actor.userId);
      await deps.invitationBudgets.perTenant.consume(actor.tenantId);
      const email = input.email.trim().toLowerCase();
      const existing = await users.findByEmail(email);
      if (existing && (await tenants.membership(actor.tenantId, existing.id)))
        throw new AppError('CONFLICT', 'this email belongs to a member of the tenant already');
      const nowMs = now();
      // A refresh replaces the pending invitation's role and inviter: only one the actor could have made.
      const replaceable = roleNames.filter((role) => mayAssign(actor.role, role));
      const result = await invitations.invite(
        actor.tenantId,
        {
          id: randomUUID(),
          email,
          role: input.role,
          invitedBy: actor.userId,
          createdAt: isoAt(nowMs),
          expiresAt: isoAt(nowMs + deps.invitationTtlSeconds * 1000),
        },
        replaceable,
      );
      if (!result.ok) {
        throw new AppError(
          'FORBIDDEN',
          `this email has a pending invitation as '${result.existing.role}', which role '${actor.role}' may not change`,
        );
      }
      const { invitation } = result;
      // Never whether the email has an account: readers of the audit log must not learn it either.
      await audit.record({
        tenantId: actor.tenantId,
        type: 'member.invite',
        actor: { userId: actor.userId },
        ...meta,
        target: { type: 'invitation', id: invitation.id },
        details: { email, role: input.role, expires_at: invitation.expiresAt },
      });
      return invitation;
    },

    tenantInvitations: (actor) => invitations.listPendingForTenant(actor.tenantId, isoAt(now())),

    async cancelInvitation(actor, invitationId, meta) {
      const current = await invitations.get(invitationId);
      if (!current || current.tenantId !== actor.tenantId) throw notFound('invitation');
      if (current.status !== 'pending') throw notPending();
      assertMayAssign(actor.role, current.role);
      // Compare-and-set on the role just checked: a refresh in between (by an owner) is not cancelled here.
      const result = await invitations.cancel(actor.tenantId, invitationId, { expectedRole: current.role, at: isoAt(now()) });
      if (!result.ok) {
        if (result.reason === 'not_found') throw notFound('invitation');
        if (result.reason === 'not_pending') throw notPending();
        throw new AppError('CONFLICT', "the invitation's role changed while this request was decided; read it again and retry");
      }
      await audit.record({
        tenantId: actor.tenantId,
        type: 'member.invite_cancel',
        actor: { userId: actor.userId },
        ...meta,
        target: { type: 'invitation', id: invitationId },
        details: { email: current.email, role: current.role, reason: 'cancelled' },
      });
      return result.invitation;
    },

    async pendingInvitations(userId) {
      const user = await users.findById(userId);
      if (!user) return [];
      const pending = await invitations.listPendingForEmail(user.email, isoAt(now()));
      return Promise.all(pending.map(async (i) => ({ ...i, tenantName: (await tenants.get(i.tenantId))?.name ?? '' })));
    },

    async acceptInvitation(userId, invitationId, meta) {
      const email = await inviteeEmail(userId);
      const result = await invitations.accept(invitationId, { email, userId }, isoAt(now()));
      if (!result.ok) {
        switch (result.reason) {
          case 'not_found':
            throw notFound('invitation');
          case 'not_pending':
            throw notPending();
          case 'expired':
            throw new AppError('CONFLICT', 'this invitation has expired; ask for a new one');
          case 'inviter_lost_authority':
            await audit.record({
              tenantId: result.invitation.tenantId,
              type: 'member.invite_cancel',
              actor: { userId },
              ...meta,
              target: { type: 'invitation', id: invitationId },
              details: {
                email: result.invitation.email,
                role: result.invitation.role,
                reason: 'inviter_lost_authority',
                invited_by: result.invitation.invitedBy,
              },
            });
            throw new AppError(
              'CONFLICT',
              'this invitation is no longer valid: whoever sent it may no longer grant this role; ask for a new one',
            );
          case 'already_member':
            throw new AppError('CONFLICT', 'you are already a member of this tenant');
        }
      }
      const { invitation } = result;
      await audit.record({
        tenantId: invitation.tenantId,
        type: 'member.invite_accept',
        actor: { userId },
        ...meta,
        target: { type: 'invitation', id: invitation.id },
        details: { role: invitation.role, invited_by: invitation.invitedBy },
      });
      return { tenantId: invitation.tenantId, role: invitation.role };
    },

    async declineInvitation(userId, invitationId, meta) {
      const email = await inviteeEmail(userId);
      const result = await invitations.decline(invitationId, email, isoAt(now()));
      if (!result.ok) {
        if (result.reason === 'not_found') throw notFound('invitation');
        throw notPending();
      }
      await audit.record({
        tenantId: result.invitation.tenantId,
        type: 'member.invite_decline',
        actor: { userId },
        ...meta,
        target: { type: 'invitation', id: invitationId },
        details: { role: result.invitation.role },
      });
      return result.invitation;
    },
  };
}
