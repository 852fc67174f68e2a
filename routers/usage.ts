import { requireScope } from '../server/procedures.js';
import { router } from '../server/trpc.js';
import { usageOutput } from './memories/schemas.js';
import { toUsage } from './memories/wire.js';

/**
 * `GET /usage` (X-API-Key with `usage:read`): the tenant's counters for the current period and its plan
 * limits; a namespace-restricted key's counts cover its namespaces only.
 */
export const usageRouter = router({
  get: requireScope('usage:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/usage',
        tags: ['Usage'],
        summary: "The tenant's usage this period (calendar month, UTC), pending writes and plan limits",
        protect: true,
      },
      auth: 'apiKey',
    })
    .output(usageOutput)
    .query(async ({ ctx }) => toUsage(await ctx.services.usage.snapshot(ctx.principal.tenantId, ctx.principal.namespaces))),
});
