import { notFound } from '../server/errors.js';
import { bearerProcedure, requirePermission, stepUpTokenOf, userProcedure } from '../server/procedures.js';
import { router } from '../server/trpc.js';
import { emptyInput } from '../server/schemas/common.js';
import { actorOf, metaOf } from './request-facts.js';
import {
  acceptedInvitation,
  cancelInvitationInput,
  cancelledInvitation,
  changeRoleInput,
  createTenantInput,
  declinedInvitation,
  invitation,
  invitationIdInput,
  invitationList,
  inviteInput,
  member,
  memberList,
  primaryTenant,
  removedMember,
  removeMemberInput,
  tenantInvitationList,
  tenantList,
  tenantListItem,
} from './tenants/schemas.js';
import { toInvitation, toMember, toPrimaryTenant, toReceivedInvitation, toSentInvitation, toTenantItem } from './tenants/wire.js';

const tags = ['Tenants'];

/** `/auth/tenants`, `/auth/gettenant` and tenant membership (`/auth/members`). */
export const tenantsRouter = router({
  list: userProcedure
    .meta({
      openapi: { method: 'GET', path: '/auth/tenants', tags, summary: "The caller's tenants, oldest membership first", protect: true },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(tenantList)
    .query(async ({ ctx }) => ({ tenants: (await ctx.services.tenants.listForUser(ctx.principal.userId)).map(toTenantItem) })),

  create: userProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/tenants',
        tags,
        summary: 'Create a tenant (plan free, status active) owned by the caller',
        protect: true,
        successDescription: 'Created',
      },
      auth: 'bearer',
    })
    .input(createTenantInput)
    .output(tenantListItem)
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.services.tenants.create(ctx.principal.userId, { name: input.name }, metaOf(ctx));
      ctx.response.status = 201;
      return toTenantItem(created);
    }),

  primary: userProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/gettenant',
        tags,
        summary: "The caller's primary tenant (the first of their memberships)",
        protect: true,
      },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(primaryTenant)
    .query(async ({ ctx }) => {
      const first = await ctx.services.tenants.primary(ctx.principal.userId);
      if (!first) throw notFound('tenant');
      return toPrimaryTenant(first);
    }),

  members: requirePermission('members:read')
    .meta({
      openapi: { method: 'GET', path: '/auth/members', tags, summary: 'Members of the current tenant and their roles', protect: true },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(memberList)
    .query(async ({ ctx }) => ({ members: (await ctx.services.tenants.listMembers(ctx.principal.tenantId)).map(toMember) })),

  invite: requirePermission('members:manage')
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/members',
        tags,
        summary:
          'Invite an email to the current tenant: 202 with the pending invitation whether or not the email has an account (409 for a member already; only owners invite owners or replace a pending owner invitation; owner or admin needs X-Step-Up-Token for members.promote; 429 with Retry-After past the hourly budgets)',
        protect: true,
        successDescription: 'Accepted',
      },
      auth: 'bearer',
    })
    .input(inviteInput)
    .output(invitation)
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.services.members.invite(actorOf(ctx.principal), input, stepUpTokenOf(ctx), metaOf(ctx));
      ctx.response.status = 202;
      return toInvitation(created);
    }),

  invitations: userProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/invitations',
        tags,
        summary: "The signed-in user's pending invitations (matched by their email), oldest first",
        protect: true,
      },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(invitationList)
    .query(async ({ ctx }) => ({
      invitations: (await ctx.services.members.pendingInvitations(ctx.principal.userId)).map(toReceivedInvitation),
    })),

  acceptInvitation: userProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/invitations/{id}/accept',
        tags,
        summary:
          'Join the inviting tenant with the invited role (404 unless invited; 409 expired, used, cancelled, no longer valid because its inviter may no longer grant the role, or already a member)',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(invitationIdInput)
    .output(acceptedInvitation)
    .mutation(async ({ ctx, input }) => {
      const joined = await ctx.services.members.acceptInvitation(ctx.principal.userId, input.id, metaOf(ctx));
      return { tenant_id: joined.tenantId, role: joined.role };
    }),

  declineInvitation: userProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/invitations/{id}/decline',
        tags,
        summary: 'Decline an invitation (404 unless invited; 409 when already used)',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(invitationIdInput)
    .output(declinedInvitation)
    .mutation(async ({ ctx, input }) => {
      const declined = await ctx.services.members.declineInvitation(ctx.principal.userId, input.id, metaOf(ctx));
      return { invitation_id: declined.id, status: 'declined' as const };
    }),

  // Static paths under /auth/members before /auth/members/{user_id} (see routers/apiKeys.ts).
  tenantInvitations: requirePermission('members:manage')
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/members/invitations',
        tags,
        summary: "The current tenant's pending, unexpired invitations, oldest first",
        protect: true,
      },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(tenantInvitationList)
    .query(async ({ ctx }) => ({
      invitations: (await ctx.services.members.tenantInvitations(actorOf(ctx.principal))).map(toSentInvitation),
    })),

  cancelInvitation: requirePermission('members:manage')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/auth/members/invitations/{invitation_id}',
        tags,
        summary:
          "Cancel a pending invitation of the current tenant (404 unknown or another tenant's; 409 no longer pending; only owners cancel owner invitations)",
        protect: true,
      },
      auth: 'bearer',
    })
    .input(cancelInvitationInput)
    .output(cancelledInvitation)
    .mutation(async ({ ctx, input }) => {
      const cancelled = await ctx.services.members.cancelInvitation(actorOf(ctx.principal), input.invitation_id, metaOf(ctx));
      return { invitation_id: cancelled.id, status: 'cancelled' as const };
    }),

  changeRole: requirePermission('members:manage')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/auth/members/{user_id}',
        tags,
        summary:
          "Change a member's role (409 for the last owner; only owners grant or change the owner role; owner or admin needs X-Step-Up-Token for members.promote)",
        protect: true,
      },
      auth: 'bearer',
    })
    .input(changeRoleInput)
    .output(member)
    .mutation(async ({ ctx, input }) =>
      toMember(await ctx.services.members.changeRole(actorOf(ctx.principal), input.user_id, input.role, stepUpTokenOf(ctx), metaOf(ctx))),
    ),

  removeMember: bearerProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/auth/members/{user_id}',
        tags,
        summary:
          'Remove a member (anyone may leave; owners and admins remove others, only owners remove owners; 409 for the last owner); needs X-Step-Up-Token for members.remove; revokes the API keys the member created here',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(removeMemberInput)
    .output(removedMember)
    .mutation(async ({ ctx, input }) => {
      const { member: removed, revokedKeyIds } = await ctx.services.members.remove(
        actorOf(ctx.principal),
        input.user_id,
        stepUpTokenOf(ctx),
        { ...metaOf(ctx), requestId: ctx.requestId },
      );
      return { user_id: removed.userId, removed: true as const, revoked_api_keys: revokedKeyIds };
    }),
});
