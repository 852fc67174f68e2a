import type { Schemas } from '@qdrant/js-client-rest';
import type { SearchFilterPolicy } from '../../server/services/search/filter-policy.js';

type Filter = Schemas['Filter'];
type Condition = Schemas['Condition'];

/** What a tenant-scoped request addresses, beyond the tenant itself. */
export interface FilterScope {
  /** Memory points (default), the tenant's entity statistics points, removed memories' tombstones, or every point of the tenant. */
  kind?: 'memory' | 'entity' | 'tombstone' | 'all';
  /** Tombstones of removals before this time (RFC 3339): the purge of old ones. */
  removedBefore?: string;
  /** The filter policy of a search (`resolveSearchFilter`; memory points only). */
  filters?: SearchFilterPolicy;
  /** One memory, or any of several (deletion). */
  memoryId?: string | readonly string[];
  /** Memory points mentioning this entity key (graph look-ups). */
  entity?: string;
  /** Memory points holding this keyword term id (the tenant's document frequency of the term). */
  term?: number;
  /**
   * Memory points of one namespace written within [from, to] (RFC 3339, inclusive), except one memory:
   * the episodic-context look-ups around a search result.
   */
  timeline?: { namespace: string; from: string; to: string; except: string };
}

/**
 * THE filter of every tenant-scoped Qdrant request (search, prefetch, count, facet, delete). It always
 * starts with `tenant_id = tenantId`; there is no other way in this adapter to build a filter, so no
 * code path can forget the tenant. A search's filter policy is translated as it stands: namespaces
 * (any of), agent (equal), each excluded status, injection-flagged points when excluded.
 */
export function tenantFilter(tenantId: string, scope: FilterScope = {}): Filter {
  if (typeof tenantId !== 'string' || tenantId.length === 0) throw new RangeError('tenantId must be a non-empty string');
  const must: Condition[] = [{ key: 'tenant_id', match: { value: tenantId } }];
  const mustNot: Condition[] = [];
  const kind = scope.kind ?? 'memory';
  if (kind !== 'all') must.push({ key: 'kind', match: { value: kind } });
  if (scope.memoryId !== undefined) {
    if (kind !== 'memory') throw new RangeError('memoryId applies to memory points only');
    const ids = scope.memoryId;
    // Refused rather than sent: a delete must never depend on how Qdrant reads an empty `any`.
    if (typeof ids !== 'string' && ids.length === 0) throw new RangeError('an empty memory id list matches nothing');
    must.push({ key: 'memory_id', match: typeof ids === 'string' ? { value: ids } : { any: [...ids] } });
  }
  if (scope.entity !== undefined) {
    if (kind !== 'memory') throw new RangeError('entity applies to memory points only');
    must.push({ key: 'entities', match: { value: scope.entity } });
  }
  if (scope.term !== undefined) {
    if (kind !== 'memory') throw new RangeError('term applies to memory points only');
    must.push({ key: 'terms', match: { value: scope.term } });
  }
  if (scope.removedBefore !== undefined) {
    if (kind !== 'tombstone') throw new RangeError('removedBefore applies to tombstones only');
    must.push({ key: 'removed_at', range: { lt: scope.removedBefore } });
  }
  if (scope.timeline !== undefined) {
    if (kind !== 'memory') throw new RangeError('timeline applies to memory points only');
    const t = scope.timeline;
    must.push({ key: 'namespace', match: { value: t.namespace } });
    must.push({ key: 'created_at', range: { gte: t.from, lte: t.to } });
    mustNot.push({ key: 'memory_id', match: { value: t.except } });
  }
  const f = scope.filters;
  if (f) {
    if (kind !== 'memory') throw new RangeError('search filters apply to memory points only');
    if (f.namespaces) {
      if (f.namespaces.length === 0)
        throw new RangeError('an empty namespace list matches nothing; resolveSearchFilter() answers null for it');
      must.push({ key: 'namespace', match: { any: [...f.namespaces] } });
    }
    if (f.agentId !== null) must.push({ key: 'agent_id', match: { value: f.agentId } });
    for (const status of f.excludedStatuses) mustNot.push({ key: 'status', match: { value: status } });
    if (f.excludeFlagged) mustNot.push({ key: 'injection_flagged', match: { value: true } });
  }
  return mustNot.length > 0 ? { must, must_not: mustNot } : { must };
}
