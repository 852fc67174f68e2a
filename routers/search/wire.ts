import type { z } from 'zod';
import type { SearchPage, SearchParams } from '../../server/services/search/search-service.js';
import type { searchInput, searchOutput } from './schemas.js';

/** The search route's wire form (snake_case), shared by `GET /memories/search` and the portal's search. */

export function fromSearchInput(input: z.output<typeof searchInput>): SearchParams {
  return {
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
  };
}

export function toSearchResponse(page: SearchPage): z.output<typeof searchOutput> {
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
}
