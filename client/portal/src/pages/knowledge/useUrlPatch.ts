import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';

/**
 * Sets several query-string values in one navigation (the kit's `useUrlState` setters each start from
 * the same render's query, so two in a row would undo each other). `''` removes a key.
 */
export function useUrlPatch(): (patch: Record<string, string>) => void {
  const search = useSearch();
  const [location, navigate] = useLocation();
  return useCallback(
    (patch) => {
      const params = new URLSearchParams(search);
      for (const [key, value] of Object.entries(patch)) {
        if (value === '') params.delete(key);
        else params.set(key, value);
      }
      const query = params.toString();
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [search, location, navigate],
  );
}
