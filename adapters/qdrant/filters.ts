import type { Schemas } from '@qdrant/js-client-rest';
import type { SearchFilters } from '../../server/ports/search-index.js';

type Filter = Schemas['Filter'];
type Condition = Schemas['Condition'];

/** What a tenant-scoped request addresses, beyond the tenant itself. */
export interface FilterScope {
  /** Memory points (default), the tenant's entity statistics points, or every point of the tenant. */
  kind?: 'memory' | 'entity' | 'all';
  /** The request filters of a search (memory points only). */
  filters?: SearchFilters;
  /** One memory (deletion). */
  memoryId?: string;
  /** Memory points mentioning this entity key (graph look-ups). */
  entity?: string;
}

/**
 * True when the request filters can match nothing (an empty namespace list): the search answers
 * empty without asking Qdrant, exactly as the embedded index does.
 */
export function matchesNothing(filters: SearchFilters): boolean {
  return Array.isArray(filters.namespaces) && filters.namespaces.length === 0;
}

/**
 * THE filter of every tenant-scoped Qdrant request (search, prefetch, count, facet, delete). It always
 * starts with `tenant_id = tenantId`; there is no other way in this adapter to build a filter, so no
 * code path can forget the tenant. The request filters mirror the embedded index:
 * namespaces (any of), agent (equal), superseded excluded unless `includeSuperseded`, archived excluded
 * only when `includeArchived === false`, injection-flagged excluded unless `includeFlagged`.
 * `minQuality` is not a filter (it orders results; see `rankPoints`).
 */
export function tenantFilter(tenantId: string, scope: FilterScope = {}): Filter {
  if (typeof tenantId !== 'string' || tenantId.length === 0) throw new RangeError('tenantId must be a non-empty string');
  const must: Condition[] = [{ key: 'tenant_id', match: { value: tenantId } }];
  const mustNot: Condition[] = [];
  const kind = scope.kind ?? 'memory';
  if (kind !== 'all') must.push({ key: 'kind', match: { value: kind } });
  if (scope.memoryId !== undefined) {
    if (kind !== 'memory') throw new RangeError('memoryId applies to memory points only');
    must.push({ key: 'memory_id', match: { value: scope.memoryId } });
  }
  if (scope.entity !== undefined) {
    if (kind !== 'memory') throw new RangeError('entity applies to memory points only');
    must.push({ key: 'entities', match: { value: scope.entity } });
  }
  const f = scope.filters;
  if (f) {
    if (kind !== 'memory') throw new RangeError('search filters apply to memory points only');
    if (f.namespaces) {
      if (f.namespaces.length === 0) throw new RangeError('an empty namespace list matches nothing; check matchesNothing() first');
      must.push({ key: 'namespace', match: { any: [...f.namespaces] } });
    }
    if (f.agentId !== undefined) must.push({ key: 'agent_id', match: { value: f.agentId } });
    if (!f.includeSuperseded) mustNot.push({ key: 'status', match: { value: 'superseded' } });
    if (f.includeArchived === false) mustNot.push({ key: 'status', match: { value: 'archived' } });
    if (!f.includeFlagged) mustNot.push({ key: 'injection_flagged', match: { value: true } });
  }
  return mustNot.length > 0 ? { must, must_not: mustNot } : { must };
}
