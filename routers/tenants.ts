import type { MemberRecord, UserTenant } from '../server/ports/tenants.js';
import { notFound } from '../server/errors.js';
import { requirePermission, userProcedure } from '../server/procedures.js';
import { router } from '../server/trpc.js';
import { emptyInput } from './auth/schemas.js';
import { addMemberInput, changeRoleInput, createTenantInput, member, memberList, primaryTenant, tenantList, tenantListItem } from './tenants/schemas.js';

const tags = ['Tenants'];
const metaOf = (ctx: { ip: string; userAgent: string | null }) => ({ ip: ctx.ip || null, userAgent: ctx.userAgent });

const toTenantItem = (t: UserTenant) => ({ tenant_id: t.tenant.id, name: t.tenant.name, created_at: t.tenant.createdAt, is_default: t.membership.isDefault });
const toMember = (m: MemberRecord) => ({ user_id: m.userId, email: m.email, name: m.name, role: m.role, joined_at: m.createdAt });

/** `/auth/tenants`, `/auth/gettenant` and tenant membership (`/auth/members`). */
export const tenantsRouter = router({
  list: userProcedure
    .meta({ openapi: { method: 'GET', path: '/auth/tenants', tags, summary: "The caller's tenants, oldest membership first", protect: true }, auth: 'bearer' })
    .input(emptyInput)
    .output(tenantList)
    .query(async ({ ctx }) => ({ tenants: (await ctx.services.tenants.listForUser(ctx.principal.userId)).map(toTenantItem) })),

  create: userProcedure
    .meta({
      openapi: { method: 'POST', path: '/auth/tenants', tags, summary: 'Create a tenant (plan free, status active) owned by the caller', protect: true, successDescription: 'Created' },
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
    .meta({ openapi: { method: 'GET', path: '/auth/gettenant', tags, summary: "The caller's primary tenant (the first of their memberships)", protect: true }, auth: 'bearer' })
    .input(emptyInput)
    .output(primaryTenant)
    .query(async ({ ctx }) => {
      const first = await ctx.services.tenants.primary(ctx.principal.userId);
      if (!first) throw notFound('tenant');
      return { tenant_id: first.tenant.id, name: first.tenant.name, is_default: first.membership.isDefault };
    }),

  members: requirePermission('members:read')
    .meta({ openapi: { method: 'GET', path: '/auth/members', tags, summary: 'Members of the current tenant and their roles', protect: true }, auth: 'bearer' })
    .input(emptyInput)
    .output(memberList)
    .query(async ({ ctx }) => ({ members: (await ctx.services.tenants.listMembers(ctx.principal.tenantId)).map(toMember) })),

  addMember: requirePermission('members:manage')
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/members',
        tags,
        summary: 'Add an existing user to the current tenant (404 unknown email, 409 already a member, 403 when a non-owner grants owner)',
        protect: true,
        successDescription: 'Created',
      },
      auth: 'bearer',
    })
    .input(addMemberInput)
    .output(member)
    .mutation(async ({ ctx, input }) => {
      const added = await ctx.services.tenants.addMember({ userId: ctx.principal.userId, tenantId: ctx.principal.tenantId, role: ctx.principal.role }, input, metaOf(ctx));
      ctx.response.status = 201;
      return toMember(added);
    }),

  changeRole: requirePermission('members:manage')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/auth/members/{user_id}',
        tags,
        summary: "Change a member's role (409 for the last owner; only owners grant or change the owner role)",
        protect: true,
      },
      auth: 'bearer',
    })
    .input(changeRoleInput)
    .output(member)
    .mutation(async ({ ctx, input }) =>
      toMember(
        await ctx.services.tenants.changeRole({ userId: ctx.principal.userId, tenantId: ctx.principal.tenantId, role: ctx.principal.role }, input.user_id, input.role, metaOf(ctx)),
      ),
    ),
});
