import { requireScope } from '../server/procedures.js';
import { router } from '../server/trpc.js';
import { searchInput, searchOutput } from './search/schemas.js';
import { fromSearchInput, toSearchResponse } from './search/wire.js';

/**
 * `GET /memories/search`. Registered before the memories router in `_app.ts`: trpc-to-openapi matches
 * routes in declaration order, and `/memories/{id}` would otherwise take `/memories/search`.
 */
export const searchRouter = router({
  memories: requireScope('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/memories/search',
        tags: ['Search'],
        summary: 'Search memories (vector-only, hybrid or hybrid+graph)',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(searchInput)
    .output(searchOutput)
    .query(async ({ ctx, input }) =>
      toSearchResponse(
        await ctx.services.search.search(
          { tenantId: ctx.principal.tenantId, namespaces: ctx.principal.namespaces },
          fromSearchInput(input),
        ),
      ),
    ),
});
