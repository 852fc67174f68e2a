import type { RequestContext } from '../../server/context.js';
import { requirePortalPermission, requirePortalStepUp } from '../../server/portal-procedures.js';
import type { UserPrincipal } from '../../server/principal.js';
import type { AuditedBy, MemoryCaller } from '../../server/services/memories/memory-service.js';
import { router } from '../../server/trpc.js';
import { portalBulkDeleteInput, portalBulkDeleteOutput, portalListMemoriesInput, portalListMemoriesOutput } from './memories-schemas.js';
import { fromBulkDeleteBody, fromPortalFilter, toPortalMemoryListItem } from './memories-wire.js';

const tags = ['Portal'];

/** A portal user reads and changes every namespace of the current tenant (namespace limits are an API key's). */
export const portalCaller = (principal: UserPrincipal): MemoryCaller => ({ tenantId: principal.tenantId, namespaces: null });

/** The signed-in user as the audit log records a portal change. */
export const portalAuditedBy = (ctx: RequestContext & { principal: UserPrincipal }): AuditedBy => ({
  actor: { userId: ctx.principal.userId },
  ip: ctx.ip || null,
  userAgent: ctx.userAgent,
});

/**
 * The memory browser's list and its bulk deletion. `/api/portal/memories/delete` and
 * `/api/portal/memories` come before `/api/portal/memories/{id}` (the REST adapter matches in order).
 */
export const portalMemoriesRouter = router({
  memoriesDelete: requirePortalStepUp('data:delete', 'data.delete')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/memories/delete',
        tags,
        summary:
          'Delete memories by ids, filter or all (exactly one); preview counts only. At most one batch per call (has_more: call again). Step-up data.delete',
        protect: true,
      },
    })
    .input(portalBulkDeleteInput)
    .output(portalBulkDeleteOutput)
    .mutation(async ({ ctx, input }) => {
      const selector = fromBulkDeleteBody(input);
      const caller = portalCaller(ctx.principal);
      if (input.preview) return { would_delete: await ctx.services.memories.bulkDelete.preview(caller, selector) };
      const done = await ctx.services.memories.bulkDelete.delete(caller, selector, portalAuditedBy(ctx));
      return { deleted: done.deleted, has_more: done.hasMore };
    }),

  memoriesList: requirePortalPermission('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/memories',
        tags,
        summary: 'The memory browser: memories newest first, with text match, filters and a total',
        protect: true,
      },
    })
    .input(portalListMemoriesInput)
    .output(portalListMemoriesOutput)
    .query(async ({ ctx, input }) => {
      const { limit, offset, ...filter } = input;
      const page = await ctx.services.memories.list(portalCaller(ctx.principal), { ...fromPortalFilter(filter), limit, offset });
      return { memories: page.items.map(toPortalMemoryListItem), total: page.total, limit, offset };
    }),
});
