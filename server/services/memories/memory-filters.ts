import { validation } from '../../errors.js';
import { namespacesInScope } from '../../namespace-access.js';
import type { ContradictionStatus, MemoryFilterQuery, MemoryStatus, MemoryType, Sensitivity } from '../../ports/memories.js';

/** The filters a memory list takes (REST `GET /memories`, the portal's list and its bulk deletion). */
export interface MemoryFilters {
  q?: string | undefined;
  type?: MemoryType | undefined;
  sensitivity?: Sensitivity | undefined;
  status?: MemoryStatus | undefined;
  contradiction?: ContradictionStatus | undefined;
  namespace?: string | undefined;
  /** created_at ≥ from (RFC 3339). */
  from?: string | undefined;
  /** created_at ≤ to (RFC 3339). */
  to?: string | undefined;
}

/**
 * The store query of a caller's filters: the one rule every list, count and bulk deletion goes through,
 * so the page a user sees and the deletion by the same filter select the same memories. Merged
 * duplicates appear only when asking for archived memories. An inverted date range is a 400.
 */
export function memoryFilterQuery(allowedNamespaces: readonly string[] | null, f: MemoryFilters): MemoryFilterQuery {
  const namespaces = namespacesInScope(allowedNamespaces, f.namespace);
  if (f.from && f.to && f.from > f.to) throw validation('from', 'must not be after `to`');
  return {
    namespaces,
    text: f.q,
    type: f.type,
    sensitivity: f.sensitivity,
    status: f.status,
    contradiction: f.contradiction,
    from: f.from,
    to: f.to,
    includeMerged: f.status === 'archived',
  };
}
