import { z } from 'zod';
import { portalProcedure, requirePortalPermission } from '../../server/portal-procedures.js';
import { stepUpTokenOf } from '../../server/procedures.js';
import { emptyInput } from '../../server/schemas/common.js';
import { builtInRoles } from '../../server/services/roles.js';
import { router } from '../../server/trpc.js';
import { metaOf } from '../request-facts.js';
import { roleSchema, toRole } from '../roles.js';
import {
  cancelledInvitation,
  invitation,
  inviteInput,
  member,
  memberList,
  removedMember,
  tenantInvitationList,
} from '../tenants/schemas.js';
import { toInvitation, toMember, toSentInvitation } from '../tenants/wire.js';
import { portalActorOf } from './actor.js';
import { portalChangeRoleInput, portalInvitationPathInput, portalMemberPathInput } from './members-schemas.js';

const tags = ['Portal'];

/**
 * `/api/portal/members`, `invitations` and `roles`: the members page. The same member service and
 * permissions as `/auth/members` (members:read to list, members:manage to invite, change and cancel;
 * anyone may leave); promoting to owner or admin and removing someone take `X-Step-Up-Token`
 * (`members.promote`, `members.remove`) earned in this portal session.
 */
export const portalMembersRouter = router({
  members: requirePortalPermission('members:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/members',
        tags,
        summary: 'Members of the current tenant and their roles',
        protect: true,
      },
    })
    .input(emptyInput)
    .output(memberList)
    .query(async ({ ctx }) => ({ members: (await ctx.services.tenants.listMembers(ctx.principal.tenantId)).map(toMember) })),

  invite: requirePortalPermission('members:manage')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/members',
        tags,
        summary:
          'Invite an email to the current tenant: 202 with the pending invitation whether or not the email has an account (409 for a member already; owner or admin needs X-Step-Up-Token for members.promote)',
        protect: true,
        successDescription: 'Accepted',
      },
    })
    .input(inviteInput)
    .output(invitation)
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.services.members.invite(portalActorOf(ctx.principal), input, stepUpTokenOf(ctx), metaOf(ctx));
      ctx.response.status = 202;
      return toInvitation(created);
    }),

  changeRole: requirePortalPermission('members:manage')
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/api/portal/members/{user_id}',
        tags,
        summary:
          "Change a member's role (409 for the last owner; only owners grant or change the owner role; owner or admin needs X-Step-Up-Token for members.promote)",
        protect: true,
      },
    })
    .input(portalChangeRoleInput)
    .output(member)
    .mutation(async ({ ctx, input }) =>
      toMember(
        await ctx.services.members.changeRole(portalActorOf(ctx.principal), input.user_id, input.role, stepUpTokenOf(ctx), metaOf(ctx)),
      ),
    ),

  removeMember: portalProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/portal/members/{user_id}',
        tags,
        summary:
          'Remove a member (anyone may leave; owners and admins remove others, only owners remove owners; 409 for the last owner); needs X-Step-Up-Token for members.remove',
        protect: true,
      },
    })
    .input(portalMemberPathInput)
    .output(removedMember)
    .mutation(async ({ ctx, input }) => {
      const { member: removed, revokedKeyIds } = await ctx.services.members.remove(
        portalActorOf(ctx.principal),
        input.user_id,
        stepUpTokenOf(ctx),
        { ...metaOf(ctx), requestId: ctx.requestId },
      );
      return { user_id: removed.userId, removed: true as const, revoked_api_keys: revokedKeyIds };
    }),

  invitations: requirePortalPermission('members:manage')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/invitations',
        tags,
        summary: "The current tenant's pending, unexpired invitations, oldest first",
        protect: true,
      },
    })
    .input(emptyInput)
    .output(tenantInvitationList)
    .query(async ({ ctx }) => ({
      invitations: (await ctx.services.members.tenantInvitations(portalActorOf(ctx.principal))).map(toSentInvitation),
    })),

  cancelInvitation: requirePortalPermission('members:manage')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/portal/invitations/{id}',
        tags,
        summary:
          "Cancel a pending invitation (404 unknown or another tenant's; 409 no longer pending; only owners cancel owner invitations)",
        protect: true,
      },
    })
    .input(portalInvitationPathInput)
    .output(cancelledInvitation)
    .mutation(async ({ ctx, input }) => {
      const cancelled = await ctx.services.members.cancelInvitation(portalActorOf(ctx.principal), input.id, metaOf(ctx));
      return { invitation_id: cancelled.id, status: 'cancelled' as const };
    }),

  roles: requirePortalPermission('roles:read')
    .meta({
      openapi: { method: 'GET', path: '/api/portal/roles', tags, summary: 'Built-in roles and their permissions', protect: true },
    })
    .input(emptyInput)
    .output(z.object({ roles: z.array(roleSchema) }))
    .query(() => ({ roles: builtInRoles.map(toRole) })),
});
