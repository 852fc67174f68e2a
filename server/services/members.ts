import { randomUUID } from 'node:crypto';
import { AppError, notFound } from '../errors.js';
import type { InvitationRecord, InvitationsPort } from '../ports/invitations.js';
import type { MemberRecord, TenantsPort } from '../ports/tenants.js';
import type { UsersPort } from '../ports/users.js';
import type { KeyedBudget } from './address-budget.js';
import type { ApiKeyService } from './api-keys.js';
import type { AuditService, RequestMeta } from './audit.js';
import type { AuthService } from './auth.js';
import type { BreakGlassService } from './break-glass.js';
import { isoAt, systemClock, type Clock } from './clock.js';
import { elevates, mayAssign, roleHas, type RoleName } from './roles.js';
import type { TenantActor } from './tenants.js';

/**
 * Membership changes: invitations (people join only by accepting one), role changes and removal.
 * Every decision follows the actor's own base role (`TenantActor.role`), never a break-glass grant;
 * making someone owner or admin, and removing anyone, also needs a step-up token. A role change or a
 * removal ends the member's break-glass requests in the tenant.
 */
export interface MembersService {
  /**
   * Invites an email to the actor's tenant: the same answer whether or not the email has an account.
   * 409 when it belongs to a member already (membership is visible to the tenant anyway); 429 past
   * the per-user or per-tenant budget.
   */
  invite(actor: TenantActor, input: { email: string; role: RoleName }, stepUpToken: string | null, meta: RequestMeta): Promise<InvitationRecord>;
  /** The signed-in user's pending, unexpired invitations (matched by their email), with tenant names. */
  pendingInvitations(userId: string): Promise<Array<InvitationRecord & { tenantName: string }>>;
  acceptInvitation(userId: string, invitationId: string, meta: RequestMeta): Promise<{ tenantId: string; role: RoleName }>;
  declineInvitation(userId: string, invitationId: string, meta: RequestMeta): Promise<InvitationRecord>;
  changeRole(actor: TenantActor, userId: string, role: RoleName, stepUpToken: string | null, meta: RequestMeta): Promise<MemberRecord>;
  /**
   * Ends a membership (anyone may leave; owners and admins remove others) and revokes the API keys the
   * removed user created there: they saw those secrets. The last owner cannot be removed (409). Keys
   * are revoked before the membership ends and swept again after, so a failure part-way can be retried
   * and a key created meanwhile does not survive; asking to remove a non-member (404) sweeps too.
   */
  remove(actor: TenantActor, userId: string, stepUpToken: string | null, meta: RequestMeta & { requestId?: string }): Promise<{ member: MemberRecord; revokedKeyIds: string[] }>;
}

export interface MembersServiceDeps {
  tenants: TenantsPort;
  users: Pick<UsersPort, 'findById' | 'findByEmail'>;
  invitations: InvitationsPort;
  audit: Pick<AuditService, 'record'>;
  stepUp: Pick<AuthService, 'verifyStepUp'>;
  apiKeys: Pick<ApiKeyService, 'revokeCreatedBy'>;
  /** A member's break-glass requests end when their role changes or they leave. */
  breakGlass: Pick<BreakGlassService, 'endFor'>;
  /** Invitations per inviting user and per tenant (reserved before anything is looked up). */
  invitationBudgets: { perUser: KeyedBudget; perTenant: KeyedBudget };
  invitationTtlSeconds: number;
  now?: Clock;
}

const lastOwner = () => new AppError('CONFLICT', 'the last owner of a tenant cannot be removed');
const roleChanged = () => new AppError('CONFLICT', "the member's role changed while this request was decided; read it again and retry");

export function createMembersService(deps: MembersServiceDeps): MembersService {
  const { tenants, users, invitations, audit, stepUp } = deps;
  const now = deps.now ?? systemClock;

  /** The actor may give each of `roles`, or take it away (`mayAssign`: only owners touch the owner role). */
  const assertMayAssign = (actor: TenantActor, ...roles: RoleName[]) => {
    if (roles.every((role) => mayAssign(actor.role, role))) return;
    if (!roleHas(actor.role, 'members:manage')) throw new AppError('FORBIDDEN', `role '${actor.role}' may not manage members`);
    throw new AppError('FORBIDDEN', 'only an owner may grant, change or remove the owner role');
  };

  async function inviteeEmail(userId: string): Promise<string> {
    const user = await users.findById(userId);
    if (!user) throw notFound('invitation');
    return user.email;
  }

  return {
    async invite(actor, input, stepUpToken, meta) {
      assertMayAssign(actor, input.role);
      if (elevates(null, input.role)) await stepUp.verifyStepUp(stepUpToken, { ...actor, action: 'members.promote' });
      // Reserve before looking anything up: every attempt counts, whatever it finds.
      await deps.invitationBudgets.perUser.consume(actor.userId);
      await deps.invitationBudgets.perTenant.consume(actor.tenantId);
      const email = input.email.trim().toLowerCase();
      const existing = await users.findByEmail(email);
      if (existing && (await tenants.membership(actor.tenantId, existing.id))) throw new AppError('CONFLICT', 'this email belongs to a member of the tenant already');
      const nowMs = now();
      const invitation = await invitations.invite(actor.tenantId, {
        id: randomUUID(),
        email,
        role: input.role,
        invitedBy: actor.userId,
        createdAt: isoAt(nowMs),
        expiresAt: isoAt(nowMs + deps.invitationTtlSeconds * 1000),
      });
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
            throw new AppError('CONFLICT', 'this invitation was already accepted or declined');
          case 'expired':
            throw new AppError('CONFLICT', 'this invitation has expired; ask for a new one');
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
        throw new AppError('CONFLICT', 'this invitation was already accepted or declined');
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

    async changeRole(actor, userId, role, stepUpToken, meta) {
      const current = await tenants.getMember(actor.tenantId, userId);
      if (!current) throw notFound('member');
      assertMayAssign(actor, role, current.role);
      if (current.role === role) return current;
      if (elevates(current.role, role)) await stepUp.verifyStepUp(stepUpToken, { ...actor, action: 'members.promote' });
      // Compare-and-set on the role the owner guard and the step-up decision above were made on.
      const result = await tenants.changeRole(actor.tenantId, userId, { from: current.role, to: role, at: isoAt(now()) });
      if (!result.ok) {
        if (result.reason === 'not_found') throw notFound('member');
        if (result.reason === 'role_changed') throw roleChanged();
        throw new AppError('CONFLICT', 'the last owner of a tenant cannot be demoted');
      }
      await audit.record({
        tenantId: actor.tenantId,
        type: 'member.role_change',
        actor: { userId: actor.userId },
        ...meta,
        target: { type: 'user', id: userId },
        details: { from: result.previous, to: role },
      });
      // A grant was decided for the role its holder had. Should this fail, the grant still gives nothing:
      // it was requested before the new role was set (see BreakGlassService.activeGrant).
      await deps.breakGlass.endFor(actor.tenantId, userId, { actorId: actor.userId, reason: 'role_change' }, meta);
      return result.member;
    },

    async remove(actor, userId, stepUpToken, { requestId, ...meta }) {
      const self = userId === actor.userId;
      if (!self && !roleHas(actor.role, 'members:manage')) throw new AppError('FORBIDDEN', `role '${actor.role}' may not remove other members`);
      const revokeKeys = () =>
        deps.apiKeys.revokeCreatedBy(
          { tenantId: actor.tenantId, userId: actor.userId, manageAll: true, ip: meta.ip, userAgent: meta.userAgent, requestId: requestId ?? null },
          userId,
        );
      const current = await tenants.getMember(actor.tenantId, userId);
      if (!current) {
        // A removal that failed after the membership ended may have left keys behind: asking again
        // finishes it. A non-member should hold no live key they created, so this is always safe.
        await revokeKeys();
        throw notFound('member');
      }
      if (!self) assertMayAssign(actor, current.role);
      await stepUp.verifyStepUp(stepUpToken, { ...actor, action: 'members.remove' });
      // Checked before the keys go, so the last owner trying to leave keeps them; the port rechecks.
      if (current.role === 'owner' && (await tenants.listMembers(actor.tenantId)).filter((m) => m.role === 'owner').length <= 1) throw lastOwner();
      // Keys first: while the membership lasts, a failure part-way leaves a removal that can simply be
      // asked for again. (Should the removal below then be refused, the keys stay revoked: the safe side.)
      const revokedKeyIds = await revokeKeys();
      const result = await tenants.removeMember(actor.tenantId, userId, current.role);
      if (!result.ok) {
        if (result.reason === 'not_found') throw notFound('member');
        if (result.reason === 'role_changed') throw roleChanged();
        throw lastOwner();
      }
      await deps.breakGlass.endFor(actor.tenantId, userId, { actorId: actor.userId, reason: 'member_removed' }, meta);
      // Once more: a key created by a request of theirs authenticated before the removal landed in between.
      revokedKeyIds.push(...(await revokeKeys()));
      await audit.record({
        tenantId: actor.tenantId,
        type: 'member.remove',
        actor: { userId: actor.userId },
        ...meta,
        target: { type: 'user', id: userId },
        details: { role: current.role, self, revoked_api_keys: revokedKeyIds.length },
      });
      return { member: result.member, revokedKeyIds };
    },
  };
}
