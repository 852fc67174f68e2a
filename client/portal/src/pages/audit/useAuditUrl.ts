import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';

export interface AuditFilters {
  type: string;
  actor: string;
  /** RFC 3339 instants, or '' for none. */
  from: string;
  to: string;
}

const KEYS = ['type', 'actor', 'from', 'to'] as const;

/**
 * The audit page's filters and page number in the query string. The kit's `useUrlState` sets one key
 * per navigation (two calls in one handler would overwrite each other), so applying the filters and
 * going back to page 1 is done here in one replace.
 */
export function useAuditUrl(): {
  filters: AuditFilters;
  page: number;
  apply: (filters: AuditFilters) => void;
  setPage: (page: number) => void;
} {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const filters: AuditFilters = {
    type: params.get('type') ?? '',
    actor: params.get('actor') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
  };
  const pageParam = Number(params.get('page') ?? '1');
  const page = Number.isInteger(pageParam) && pageParam >= 1 ? pageParam : 1;

  const write = useCallback(
    (change: (p: URLSearchParams) => void) => {
      const next = new URLSearchParams(search);
      change(next);
      const query = next.toString();
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [search, location, navigate],
  );
  const apply = useCallback(
    (f: AuditFilters) =>
      write((p) => {
        for (const key of KEYS) {
          const value = f[key].trim();
          if (value) p.set(key, value);
          else p.delete(key);
        }
        p.delete('page');
      }),
    [write],
  );
  const setPage = useCallback((n: number) => write((p) => (n <= 1 ? p.delete('page') : p.set('page', String(n)))), [write]);
  return { filters, page, apply, setPage };
}
