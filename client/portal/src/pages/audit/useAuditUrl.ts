import { useCallback } from 'react';
import { useSearch } from 'wouter';
import { useUrlPatch } from '../../ui';

export interface AuditFilters {
  type: string;
  actor: string;
  /** RFC 3339 instants, or '' for none. */
  from: string;
  to: string;
}

const KEYS = ['type', 'actor', 'from', 'to'] as const;

/** The audit page's filters and page number in the query string; applying filters returns to page 1 in the same step. */
export function useAuditUrl(): {
  filters: AuditFilters;
  page: number;
  apply: (filters: AuditFilters) => void;
  setPage: (page: number) => void;
} {
  const params = new URLSearchParams(useSearch());
  const patch = useUrlPatch();
  const filters: AuditFilters = {
    type: params.get('type') ?? '',
    actor: params.get('actor') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
  };
  const pageParam = Number(params.get('page') ?? '1');
  const page = Number.isInteger(pageParam) && pageParam >= 1 ? pageParam : 1;

  const apply = useCallback(
    (f: AuditFilters) => patch({ ...Object.fromEntries(KEYS.map((key) => [key, f[key].trim()])), page: '' }),
    [patch],
  );
  const setPage = useCallback((n: number) => patch({ page: n <= 1 ? '' : String(n) }), [patch]);
  return { filters, page, apply, setPage };
}
