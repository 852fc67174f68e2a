import { describe, expect, it } from 'vitest';
import type { SearchFilters } from '../../server/ports/search-index.js';
import { resolveSearchFilter, type SearchFilterPolicy } from '../../server/services/search/filter-policy.js';

const DEFAULTS: SearchFilterPolicy = { namespaces: null, agentId: null, excludedStatuses: ['superseded'], excludeFlagged: true };

describe('resolveSearchFilter', () => {
  const table: [string, SearchFilters, SearchFilterPolicy | null][] = [
    ['every namespace, superseded and flagged left out by default', { namespaces: null }, DEFAULTS],
    ['an empty namespace list matches nothing', { namespaces: [] }, null],
    ['an empty namespace list matches nothing whatever else is asked', { namespaces: [], includeSuperseded: true, agentId: 'a' }, null],
    ['named namespaces are kept as given', { namespaces: ['work', 'home'] }, { ...DEFAULTS, namespaces: ['work', 'home'] }],
    ['an agent narrows to its memories', { namespaces: null, agentId: 'a-1' }, { ...DEFAULTS, agentId: 'a-1' }],
    ['superseded versions when asked', { namespaces: null, includeSuperseded: true }, { ...DEFAULTS, excludedStatuses: [] }],
    ['superseded stay out when the flag is false', { namespaces: null, includeSuperseded: false }, DEFAULTS],
    ['flagged memories when asked', { namespaces: null, includeFlagged: true }, { ...DEFAULTS, excludeFlagged: false }],
    ['flagged stay out when the flag is false', { namespaces: null, includeFlagged: false }, DEFAULTS],
    ['minQuality orders results and filters nothing', { namespaces: null, minQuality: 0.9 }, DEFAULTS],
    [
      'everything at once',
      { namespaces: ['n'], agentId: 'a', includeSuperseded: true, includeFlagged: true, minQuality: 0.5 },
      { namespaces: ['n'], agentId: 'a', excludedStatuses: [], excludeFlagged: false },
    ],
  ];
  it.each(table)('%s', (_name, filters, expected) => {
    expect(resolveSearchFilter(filters)).toEqual(expected);
  });

  it('never excludes archived memories', () => {
    for (const includeSuperseded of [undefined, false, true]) {
      expect(resolveSearchFilter({ namespaces: null, includeSuperseded })!.excludedStatuses).not.toContain('archived');
    }
  });
});
