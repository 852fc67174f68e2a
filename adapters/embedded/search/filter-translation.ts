import type { SearchFilters } from '../../../server/ports/search-index.js';
import { resolveSearchFilter } from '../../../server/services/search/filter-policy.js';
import { rowFilter, type RowFilter } from './tenant-cache.js';

/** A search's filter policy as the embedded index applies it. */
export interface TranslatedFilter {
  /** The tenant cache's row predicate (every channel's candidates). */
  filter: RowFilter;
  /** The same over `search_docs d`, for the keyword and graph channels' SQL fallback, with its parameters. */
  sql: string;
  params: unknown[];
}

/**
 * The search's filter policy (`resolveSearchFilter`) in two forms: SQL over `search_docs d` (the keyword and graph
 * channels' fallback) and a predicate over the tenant cache (every channel's candidates). Null when nothing can match.
 */
export function translateFilter(tenantId: string, filters: SearchFilters): TranslatedFilter | null {
  const policy = resolveSearchFilter(filters);
  if (!policy) return null;
  const parts = ['d.tenant_id = ?'];
  const params: unknown[] = [tenantId];
  if (policy.namespaces) {
    parts.push('d.namespace IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(policy.namespaces));
  }
  if (policy.agentId !== null) {
    parts.push('d.agent_id = ?');
    params.push(policy.agentId);
  }
  // Statuses are a closed set of literals, so they are written into the SQL rather than bound.
  for (const status of policy.excludedStatuses) parts.push(`d.status <> '${status}'`);
  if (policy.excludeFlagged) parts.push('d.injection_flagged = 0');
  return { sql: parts.join(' AND '), params, filter: rowFilter(policy) };
}
