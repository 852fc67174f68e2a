import { useCallback } from 'react';
import { useLocation, useSearch } from 'wouter';

/**
 * Changes several query-string values in one navigation (`''` removes a key), so a filter change and
 * the page reset it implies are one step. Each change is a history entry: back and forward step
 * through the views, a reload and a shared link show the same one.
 */
export function useUrlPatch(): (patch: Readonly<Record<string, string>>) => void {
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
      navigate(query ? `${location}?${query}` : location);
    },
    [search, location, navigate],
  );
}

/**
 * One filter or page number kept in the query string. Setting the default value removes the
 * parameter. Strings only: parse numbers at the call site (`Number(page)`). To change several keys at
 * once, use `useUrlPatch` (two setters called in one handler would each start from the same query).
 */
export function useUrlState(key: string, defaultValue = ''): [string, (value: string) => void] {
  const value = new URLSearchParams(useSearch()).get(key) ?? defaultValue;
  const patch = useUrlPatch();
  const set = useCallback((next: string) => patch({ [key]: next === defaultValue ? '' : next }), [patch, key, defaultValue]);
  return [value, set];
}
