import { requireScope } from '../server/procedures.js';
import { router } from '../server/trpc.js';
import { searchInput, searchOutput } from './search/schemas.js';

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
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.search.search(
        { tenantId: ctx.principal.tenantId, namespaces: ctx.principal.namespaces },
        {
          q: input.q,
          k: input.k,
          mode: input.mode,
          offset: input.offset,
          cursor: input.cursor,
          minQuality: input.min_quality,
          agentId: input.agent_id,
          namespace: input.namespace,
          includeSuperseded: input.include_superseded,
          includeFlagged: input.include_flagged,
        },
      );
      return {
        results: page.results.map((r) => ({
          memory_id: r.memory.id,
          title: r.title,
          content: r.content,
          score: r.score,
          created_at: r.memory.createdAt,
          tags: r.tags,
          namespace: r.memory.namespace,
          agent_id: r.agentId,
          metadata: r.metadata,
          injection_flagged: r.memory.injectionFlagged,
        })),
        total: page.total,
        offset: page.offset,
        k: page.k,
        next_cursor: page.nextCursor,
      };
    }),
});
