import type { MemoryStatus, SearchFilters } from '../../ports/search-index.js';

/**
 * What a search may return, resolved once from its request filters. Every search index translates
 * this (SQL and a row predicate in the embedded index, a payload filter in Qdrant) and none reads
 * `SearchFilters` itself, so the two profiles cannot disagree on which memories a search sees.
 */
export interface SearchFilterPolicy {
  /** Namespaces searched (any of); null for every namespace of the tenant. Never empty. */
  namespaces: readonly string[] | null;
  /** Only memories written by this agent; null for any agent. */
  agentId: string | null;
  /** Statuses a search never returns. */
  excludedStatuses: readonly MemoryStatus[];
  /** Memories flagged as prompt-injection attempts are left out. */
  excludeFlagged: boolean;
}

// Shared and frozen: resolving a search's filters allocates nothing for its statuses.
const WITHOUT_SUPERSEDED: readonly MemoryStatus[] = Object.freeze(['superseded']);
const EVERY_STATUS: readonly MemoryStatus[] = Object.freeze([]);

/**
 * The policy of a search's filters, or null when they can match nothing (an empty namespace list):
 * the search then answers empty without asking its index. Superseded versions and injection-flagged
 * memories are left out unless asked for; archived memories are always searchable. `minQuality` is
 * not a filter: it orders results (see `SearchFilters`).
 */
export function resolveSearchFilter(filters: SearchFilters): SearchFilterPolicy | null {
  if (filters.namespaces && filters.namespaces.length === 0) return null;
  return {
    namespaces: filters.namespaces ?? null,
    agentId: filters.agentId ?? null,
    excludedStatuses: filters.includeSuperseded === true ? EVERY_STATUS : WITHOUT_SUPERSEDED,
    excludeFlagged: filters.includeFlagged !== true,
  };
}
