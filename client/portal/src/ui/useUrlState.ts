import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';

/**
 * A filter or page number kept in the query string, so a reload, the back button and a shared link
 * show the same view. Setting the default value removes the parameter. Strings only: parse numbers
 * at the call site (`Number(page)`).
 */
export function useUrlState(key: string, defaultValue = ''): [string, (value: string) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const value = new URLSearchParams(search).get(key) ?? defaultValue;
  const set = useCallback(
    (next: string) => {
      const params = new URLSearchParams(search);
      if (next === defaultValue) params.delete(key);
      else params.set(key, next);
      const query = params.toString();
      navigate(query ? `${location}?${query}` : location, { replace: true });
    },
    [search, location, navigate, key, defaultValue],
  );
  return [value, set];
}
