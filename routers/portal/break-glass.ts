import { portalProcedure, requirePortalPermission } from '../../server/portal-procedures.js';
import { emptyInput } from '../../server/schemas/common.js';
import { router } from '../../server/trpc.js';
import { breakGlassIdInput, breakGlassList, breakGlassRequest, breakGlassRequestInput } from '../auth/schemas.js';
import { fromBreakGlassRequestBody, toBreakGlassView } from '../auth/wire.js';
import { metaOf } from '../request-facts.js';
import { portalActorOf } from './actor.js';

const tags = ['Portal'];

/**
 * `/api/portal/break-glass`: emergency elevation from the portal, through the same service and
 * permissions as `/auth/break-glass` (break_glass:request to ask, break_glass:approve to decide;
 * nobody decides their own request; every step is audited by the service).
 */
export const portalBreakGlassRouter = router({
  breakGlassList: portalProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/break-glass',
        tags,
        summary: 'Break-glass requests of the tenant (owners and admins see all, others their own)',
        protect: true,
      },
    })
    .input(emptyInput)
    .output(breakGlassList)
    .query(async ({ ctx }) => ({ requests: (await ctx.services.breakGlass.list(portalActorOf(ctx.principal))).map(toBreakGlassView) })),

  breakGlassRequest: requirePortalPermission('break_glass:request')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/break-glass/request',
        tags,
        summary: 'Ask for time-boxed emergency elevation; another owner or admin must approve it',
        protect: true,
        successDescription: 'Created',
      },
    })
    .input(breakGlassRequestInput)
    .output(breakGlassRequest)
    .mutation(async ({ ctx, input }) => {
      const record = await ctx.services.breakGlass.request(portalActorOf(ctx.principal), fromBreakGlassRequestBody(input), metaOf(ctx));
      ctx.response.status = 201;
      return toBreakGlassView(record);
    }),

  breakGlassApprove: requirePortalPermission('break_glass:approve')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/break-glass/{id}/approve',
        tags,
        summary: 'Approve a pending request (not your own: 403; already decided: 409)',
        protect: true,
      },
    })
    .input(breakGlassIdInput)
    .output(breakGlassRequest)
    .mutation(async ({ ctx, input }) =>
      toBreakGlassView(await ctx.services.breakGlass.approve(portalActorOf(ctx.principal), input.id, metaOf(ctx))),
    ),

  breakGlassDeny: requirePortalPermission('break_glass:approve')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/break-glass/{id}/deny',
        tags,
        summary: 'Deny a pending request (not your own: 403; already decided: 409)',
        protect: true,
      },
    })
    .input(breakGlassIdInput)
    .output(breakGlassRequest)
    .mutation(async ({ ctx, input }) =>
      toBreakGlassView(await ctx.services.breakGlass.deny(portalActorOf(ctx.principal), input.id, metaOf(ctx))),
    ),
});
