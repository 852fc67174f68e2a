import { AppError, notFound } from '../errors.js';
import type { MemberRecord, TenantStore } from '../ports/tenants.js';
import type { ApiKeyService } from './api-keys.js';
import type { RequestMeta } from './audit.js';
import type { BreakGlassService } from './break-glass.js';
import { isoAt, systemClock } from './clock.js';
import { createInvitationsService, type InvitationsService, type InvitationsServiceDeps } from './invitations.js';
import { assertMayAssign, elevates, roleHas, type RoleName } from './roles.js';
import type { TenantActor } from './tenants.js';

/**
 * Membership changes: invitations (`invitations.ts`: people join only by accepting one), role changes
 * and removal. Every decision follows the actor's own base role (`TenantActor.role`), never a
 * break-glass grant; making someone owner or admin, and removing anyone, also needs a step-up token. A
 * role change or a removal ends the member's break-glass requests in the tenant.
 */
export interface MembersService extends InvitationsService {
  changeRole(actor: TenantActor, userId: string, role: RoleName, stepUpToken: string | null, meta: RequestMeta): Promise<MemberRecord>;
  /**
   * Ends a membership (anyone may leave; owners and admins remove others) and revokes the API keys whose
   * current secret the removed user holds there (`revokeHeldBy`: created and not since rotated by
   * someone else, or rotated by them). The last owner cannot be removed (409). Keys
   * are revoked before the membership ends and swept again after, so a failure part-way can be retried
   * and a key created meanwhile does not survive; asking to remove a non-member (404) sweeps too.
   */
  remove(
    actor: TenantActor,
    userId: string,
    stepUpToken: string | null,
    meta: RequestMeta & { requestId?: string },
  ): Promise<{ member: MemberRecord; revokedKeyIds: string[] }>;
}

export interface MembersServiceDeps extends InvitationsServiceDeps {
  tenants: TenantStore;
  apiKeys: Pick<ApiKeyService, 'revokeHeldBy'>;
  /** A member's break-glass requests end when their role changes or they leave. */
  breakGlass: Pick<BreakGlassService, 'endFor'>;
}

const lastOwner = () => new AppError('CONFLICT', 'the last owner of a tenant cannot be removed');
const roleChanged = () => new AppError('CONFLICT', "the member's role changed while this request was decided; read it again and retry");

export function createMembersService(deps: MembersServiceDeps): MembersService {
  const { tenants, audit, stepUp } = deps;
  const now = deps.clock ?? systemClock;

  return {
    ...createInvitationsService(deps),

    async changeRole(actor, userId, role, stepUpToken, meta) {
      const current = await tenants.getMember(actor.tenantId, userId);
      if (!current) throw notFound('member');
      assertMayAssign(actor.role, role, current.role);
      if (current.role === role) return current;
      if (elevates(current.role, role)) await stepUp.verifyStepUp(stepUpToken, { ...actor, action: 'members.promote' });
      // Compare-and-set on the role the owner guard and the step-up decision above were made on.
      const result = await tenants.changeRole(actor.tenantId, userId, { from: current.role, to: role, at: isoAt(now()) });
      if (!result.ok) {
        if (result.reason === 'not_found') throw notFound('member');
        if (result.reason === 'role_changed') throw roleChanged();
        throw new AppError('CONFLICT', 'the last owner of a tenant cannot be demoted');
      }
      // A grant was decided for the role its holder had. Should this fail, the grant still gives nothing:
      // it was requested before the new role was set (see BreakGlassService.activeGrant).
      await deps.breakGlass.endFor(actor.tenantId, userId, { actorId: actor.userId, reason: 'role_change' }, meta);
      await audit.record({
        tenantId: actor.tenantId,
        type: 'member.role_change',
        actor: { userId: actor.userId },
        ...meta,
        target: { type: 'user', id: userId },
        details: { from: result.previous, to: role },
      });
      return result.member;
    },

    async remove(actor, userId, stepUpToken, { requestId, ...meta }) {
      const self = userId === actor.userId;
      if (!self && !roleHas(actor.role, 'members:manage'))
        throw new AppError('FORBIDDEN', `role '${actor.role}' may not remove other members`);
      const revokeKeys = () =>
        deps.apiKeys.revokeHeldBy(
          {
            tenantId: actor.tenantId,
            userId: actor.userId,
            manageAll: true,
            ip: meta.ip,
            userAgent: meta.userAgent,
            requestId: requestId ?? null,
          },
          userId,
        );
      const current = await tenants.getMember(actor.tenantId, userId);
      if (!current) {
        // A removal that failed after the membership ended may have left keys behind: asking again
        // finishes it. A non-member should hold no live key's secret, so this is always safe.
        await revokeKeys();
        throw notFound('member');
      }
      if (!self) assertMayAssign(actor.role, current.role);
      await stepUp.verifyStepUp(stepUpToken, { ...actor, action: 'members.remove' });
      // Checked before the keys go, so the last owner trying to leave keeps them; the port rechecks.
      if (current.role === 'owner' && (await tenants.listMembers(actor.tenantId)).filter((m) => m.role === 'owner').length <= 1)
        throw lastOwner();
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
