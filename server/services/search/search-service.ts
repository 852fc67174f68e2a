import type { OnboardingObserver } from '../onboarding.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../../ports/embedder.js';
import type { MemoryHitRecord } from '../../ports/memories.js';
import type { SearchIndex, SearchMode } from '../../ports/search-index.js';
import type { MemoryCaller, MemoryService } from '../memories/memory-service.js';
import type { UsageService } from '../usage.js';
import { namespacesInScope } from '../../namespace-access.js';
import type { CursorCodec } from './cursor.js';

/**
 * The deepest page start a search serves, by `offset` or by cursor alike: every channel ranks
 * offset + k candidates, so deeper pages cost more and would let a client walk a whole tenant's index
 * page by page. Listing (`GET /memories`) is the way through everything.
 */
export const SEARCH_OFFSET_MAX = 1000;

export interface SearchParams {
  q: string;
  k: number;
  mode: SearchMode;
  offset?: number | undefined;
  /** A `next_cursor` of an earlier page of the same query; takes precedence over `offset`. */
  cursor?: string | undefined;
  minQuality?: number | undefined;
  /** A filter only: narrows to one agent's memories, never establishes identity. */
  agentId?: string | undefined;
  /** Narrows to one namespace the key may use. */
  namespace?: string | undefined;
  includeSuperseded?: boolean | undefined;
  includeFlagged?: boolean | undefined;
}

export interface SearchHitView {
  memory: MemoryHitRecord;
  /**
   * The consolidated version's fields that an update may change, as indexed: a pending update's
   * title, text, tags, agent and metadata are not shown until consolidation screened them.
   */
  title: string;
  content: string;
  tags: string[];
  agentId: string | null;
  metadata: MemoryHitRecord['metadata'];
  score: number;
}

export interface SearchPage {
  results: SearchHitView[];
  total: number;
  offset: number;
  k: number;
  nextCursor: string | null;
}

export interface SearchServiceDeps {
  index: SearchIndex;
  embedder: Embedder;
  memories: Pick<MemoryService, 'resolveHits' | 'version'>;
  usage: Pick<UsageService, 'recordSearch'>;
  cursors: CursorCodec;
  logger: Logger;
  /** Told of every search answered (the tenant's onboarding checklist); never throws. */
  onboarding?: OnboardingObserver;
}

/**
 * `GET /memories/search`: embeds the query, asks the index (which applies every tenant, namespace,
 * status and injection filter inside its channels), then resolves hits to memories the key may see.
 * Only consolidated content is returned: a hit whose memory has a newer pending write shows the
 * version that was indexed, never the unscreened new text.
 */
export function createSearchService(deps: SearchServiceDeps) {
  async function queryVector(q: string, mode: SearchMode): Promise<Float32Array | null> {
    try {
      const [vector] = await deps.embedder.embed([q]);
      return vector ?? null;
    } catch (err) {
      // Keyword and graph channels still answer a hybrid query; a dense-only query cannot.
      if (mode === 'vector-only') throw new AppError('DEPENDENCY_UNAVAILABLE', 'the embedding service is unavailable');
      deps.logger.warn({ err }, 'query embedding failed; searching without the dense channel');
      return null;
    }
  }

  async function consolidatedView(caller: MemoryCaller, memory: MemoryHitRecord) {
    const shown =
      memory.version === memory.committedVersion ? memory : await deps.memories.version(caller, memory.id, memory.committedVersion);
    return { title: shown.title, content: shown.content, tags: shown.tags, agentId: shown.agentId, metadata: shown.metadata };
  }

  return {
    async search(caller: MemoryCaller, params: SearchParams): Promise<SearchPage> {
      const namespaces = namespacesInScope(caller.namespaces, params.namespace);
      const binding = {
        tenantId: caller.tenantId,
        query: {
          q: params.q,
          k: params.k,
          mode: params.mode,
          min_quality: params.minQuality,
          agent_id: params.agentId,
          namespaces: namespaces?.join('\u0000'),
          include_superseded: params.includeSuperseded,
          include_flagged: params.includeFlagged,
        },
      };
      // The input schema caps `offset`; a cursor signed before the cap existed may point deeper.
      const offset = params.cursor !== undefined ? deps.cursors.decode(params.cursor, binding, SEARCH_OFFSET_MAX) : (params.offset ?? 0);
      await deps.usage.recordSearch(caller.tenantId);
      const vector = await queryVector(params.q, params.mode);
      const found = await deps.index.search(caller.tenantId, {
        text: params.q,
        vector,
        mode: params.mode,
        limit: params.k,
        offset,
        filters: {
          namespaces,
          ...(params.agentId !== undefined ? { agentId: params.agentId } : {}),
          includeSuperseded: params.includeSuperseded ?? false,
          includeFlagged: params.includeFlagged ?? false,
          ...(params.minQuality !== undefined ? { minQuality: params.minQuality } : {}),
        },
      });
      const resolved = await deps.memories.resolveHits(caller, found.hits);
      const results: SearchHitView[] = [];
      for (const hit of resolved) results.push({ memory: hit.memory, score: hit.score, ...(await consolidatedView(caller, hit.memory)) });
      const next = offset + params.k;
      await deps.onboarding?.(caller.tenantId, 'ran_first_search');
      return {
        results,
        total: found.total,
        offset,
        k: params.k,
        nextCursor: next < found.total && next <= SEARCH_OFFSET_MAX ? deps.cursors.encode(binding, next) : null,
      };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
