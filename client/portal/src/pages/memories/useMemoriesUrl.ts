import { useCallback, useMemo } from 'react';
import { useSearch } from 'wouter';
import { useUrlPatch } from '../../ui';
import { dayEnd, dayStart } from './format';
import { isSearchMode, PAGE_SIZE } from './options';
import type { ListInput, MemoryFilter, SearchMode } from './types';

const KEYS = [
  'view',
  'q',
  'type',
  'sensitivity',
  'status',
  'contradiction',
  'namespace',
  'from',
  'to',
  'page',
  'sq',
  'mode',
  'open',
] as const;
export type UrlKey = (typeof KEYS)[number];
export type UrlValues = Record<UrlKey, string>;
export const FILTER_KEYS = ['q', 'type', 'sensitivity', 'status', 'contradiction', 'namespace', 'from', 'to'] as const;

/**
 * The page's whole view in the query string (the kit's `useUrlPatch`: a filter change also resets the
 * page in the same step; back and forward step through filters, searches and the open memory).
 */
export function useMemoriesUrl() {
  const search = useSearch();
  const patch = useUrlPatch();
  const values = useMemo(() => {
    const params = new URLSearchParams(search);
    return Object.fromEntries(KEYS.map((k) => [k, params.get(k) ?? ''])) as UrlValues;
  }, [search]);
  const update = useCallback(
    (changes: Partial<UrlValues>) => patch(Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v ?? '']))),
    [patch],
  );
  return { values, update };
}

export const pageOf = (v: UrlValues) => Math.max(1, Number.parseInt(v.page, 10) || 1);
export const modeOf = (v: UrlValues): SearchMode => (isSearchMode(v.mode) ? v.mode : 'hybrid');

/** The filters the URL holds, as the list and a deletion by filter take them (empty ones left out). */
export function filterOf(v: UrlValues): MemoryFilter {
  const f: Record<string, string | undefined> = {
    q: v.q || undefined,
    type: v.type || undefined,
    sensitivity: v.sensitivity || undefined,
    status: v.status || undefined,
    contradiction: v.contradiction || undefined,
    namespace: v.namespace || undefined,
    created_from: dayStart(v.from),
    created_to: dayEnd(v.to),
  };
  return Object.fromEntries(Object.entries(f).filter(([, value]) => value !== undefined)) as MemoryFilter;
}

export const hasFilter = (v: UrlValues) => FILTER_KEYS.some((k) => v[k] !== '');

export function listInputOf(v: UrlValues): ListInput {
  return { ...filterOf(v), limit: PAGE_SIZE, offset: (pageOf(v) - 1) * PAGE_SIZE };
}
