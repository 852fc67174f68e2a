import { z } from 'zod';
import { portalUserProcedure } from '../../server/portal-procedures.js';
import { emptyInput } from '../../server/schemas/common.js';
import { router } from '../../server/trpc.js';
import { metaOf } from '../request-facts.js';
import { createTenantInput } from '../tenants/schemas.js';
import { portalTenant } from './session-schemas.js';
import { toPortalTenant } from './session-wire.js';

const tags = ['Portal'];

const portalTenantList = z.object({ tenants: z.array(portalTenant).meta({ description: "The user's tenants, oldest membership first" }) });

/**
 * `/api/portal/tenants`: the tenant switcher's list and the create-tenant dialog. User-level routes
 * (they work while the current tenant is suspended); creating one makes the user its owner and is
 * audited by the tenants service.
 */
export const portalTenantsRouter = router({
  tenants: portalUserProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/tenants',
        tags,
        summary: "The signed-in user's tenants with their role in each",
        protect: true,
      },
    })
    .input(emptyInput)
    .output(portalTenantList)
    .query(async ({ ctx }) => ({ tenants: (await ctx.services.tenants.listForUser(ctx.portalSession.userId)).map(toPortalTenant) })),

  createTenant: portalUserProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/tenants',
        tags,
        summary: 'Create a tenant (plan free) owned by the signed-in user',
        protect: true,
        successDescription: 'Created',
      },
    })
    .input(createTenantInput)
    .output(portalTenant)
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.services.tenants.create(ctx.portalSession.userId, { name: input.name }, metaOf(ctx));
      ctx.response.status = 201;
      return toPortalTenant(created);
    }),
});
