import { requirePortalPermission } from '../../server/portal-procedures.js';
import { router } from '../../server/trpc.js';
import { searchInput, searchOutput } from '../search/schemas.js';
import { fromSearchInput, toSearchResponse } from '../search/wire.js';
import { portalCaller } from './memories.js';

/** `GET /api/portal/search`: the search service as `GET /memories/search` calls it (usage is counted the same way). */
export const portalSearchRouter = router({
  memorySearch: requirePortalPermission('memories:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/search',
        tags: ['Portal'],
        summary: "Search the tenant's memories (vector-only, hybrid or hybrid+graph; `+` may arrive as a space)",
        protect: true,
      },
    })
    .input(searchInput)
    .output(searchOutput)
    .query(async ({ ctx, input }) =>
      toSearchResponse(await ctx.services.search.search(portalCaller(ctx.principal), fromSearchInput(input))),
    ),
});
