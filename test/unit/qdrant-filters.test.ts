import { describe, expect, it } from 'vitest';
import { tenantFilter, type FilterScope } from '../../adapters/qdrant/filters.js';
import type { SearchFilters } from '../../server/ports/search-index.js';
import { resolveSearchFilter, type SearchFilterPolicy } from '../../server/services/search/filter-policy.js';

/** A search's filters as the adapter receives them: resolved. */
const resolved = (filters: SearchFilters): SearchFilterPolicy => resolveSearchFilter(filters)!;

const TENANT = { key: 'tenant_id', match: { value: 't1' } };

describe('tenantFilter', () => {
  it('always starts with the tenant condition, whatever the scope', () => {
    const filterSets: (SearchFilters | undefined)[] = [
      undefined,
      { namespaces: null },
      { namespaces: ['a', 'b'], agentId: 'agent', includeSuperseded: true, includeFlagged: true, minQuality: 0.5 },
      { namespaces: ['x'] },
    ];
    const scopes: FilterScope[] = [
      {},
      { kind: 'all' },
      { kind: 'entity' },
      { memoryId: 'm' },
      { entity: 'sarah' },
      ...filterSets.map((filters) => ({ filters: filters && resolved(filters) })),
    ];
    for (const scope of scopes) {
      const f = tenantFilter('t1', scope);
      expect(Array.isArray(f.must) && f.must[0], JSON.stringify(scope)).toEqual(TENANT);
      expect(f.should, JSON.stringify(scope)).toBeUndefined();
    }
  });

  it('maps the request filters like the embedded index', () => {
    expect(tenantFilter('t1', { filters: resolved({ namespaces: null }) })).toEqual({
      must: [TENANT, { key: 'kind', match: { value: 'memory' } }],
      must_not: [
        { key: 'status', match: { value: 'superseded' } },
        { key: 'injection_flagged', match: { value: true } },
      ],
    });
    expect(
      tenantFilter('t1', {
        filters: resolved({ namespaces: ['work', 'home'], agentId: 'a-2', includeSuperseded: true, includeFlagged: true, minQuality: 0.9 }),
      }),
    ).toEqual({
      must: [
        TENANT,
        { key: 'kind', match: { value: 'memory' } },
        { key: 'namespace', match: { any: ['work', 'home'] } },
        { key: 'agent_id', match: { value: 'a-2' } },
      ],
    });
  });

  it('scopes deletes and look-ups', () => {
    expect(tenantFilter('t1', { memoryId: 'm-1' })).toEqual({
      must: [TENANT, { key: 'kind', match: { value: 'memory' } }, { key: 'memory_id', match: { value: 'm-1' } }],
    });
    expect(tenantFilter('t1', { kind: 'all' })).toEqual({ must: [TENANT] });
    expect(tenantFilter('t1', { entity: 'woodworking class' })).toEqual({
      must: [TENANT, { key: 'kind', match: { value: 'memory' } }, { key: 'entities', match: { value: 'woodworking class' } }],
    });
    expect(tenantFilter('t1')).toEqual({ must: [TENANT, { key: 'kind', match: { value: 'memory' } }] });
  });

  it('scopes a keyword term’s document frequency and the episodic-context look-ups to the tenant', () => {
    expect(tenantFilter('t1', { term: 4_000_000_000 })).toEqual({
      must: [TENANT, { key: 'kind', match: { value: 'memory' } }, { key: 'terms', match: { value: 4_000_000_000 } }],
    });
    const timeline = { namespace: 'chat', from: '2025-01-01T00:00:00.000Z', to: '2025-01-01T00:30:00.000Z', except: 'm-1' };
    expect(tenantFilter('t1', { timeline, filters: resolved({ namespaces: ['chat'] }) })).toEqual({
      must: [
        TENANT,
        { key: 'kind', match: { value: 'memory' } },
        { key: 'namespace', match: { value: 'chat' } },
        { key: 'created_at', range: { gte: timeline.from, lte: timeline.to } },
        { key: 'namespace', match: { any: ['chat'] } },
      ],
      must_not: [
        { key: 'memory_id', match: { value: 'm-1' } },
        { key: 'status', match: { value: 'superseded' } },
        { key: 'injection_flagged', match: { value: true } },
      ],
    });
    expect(() => tenantFilter('t1', { kind: 'entity', term: 1 })).toThrow(RangeError);
    expect(() => tenantFilter('t1', { kind: 'all', timeline })).toThrow(RangeError);
  });

  it('refuses a missing tenant and contradictory scopes', () => {
    for (const bad of ['', undefined, null, 42]) expect(() => tenantFilter(bad as unknown as string)).toThrow(RangeError);
    expect(() => tenantFilter('t1', { kind: 'entity', memoryId: 'm' })).toThrow(RangeError);
    expect(() => tenantFilter('t1', { kind: 'all', filters: resolved({ namespaces: null }) })).toThrow(RangeError);
    expect(() => tenantFilter('t1', { filters: { ...resolved({ namespaces: null }), namespaces: [] } })).toThrow(/matches nothing/);
  });
});
