import { mayUseNamespace } from '../../namespace-access.js';
import type { MemoryFilterQuery, MemoryStore } from '../../ports/memories.js';
import type { AuditService } from '../audit.js';
import { memoryFilterQuery, type MemoryFilters } from './memory-filters.js';
import type { AuditedBy, MemoryCaller } from './memory-service.js';

/** Most memories one bulk-deletion call deletes; the caller repeats while `hasMore`. */
export const BULK_DELETE_BATCH = 1000;

/**
 * Which memories a bulk deletion takes: listed ids, a list filter, or every memory (`all` is its own
 * choice so that an empty filter can never mean everything by accident).
 */
export type BulkDeleteSelector = { ids: readonly string[] } | { filter: MemoryFilters } | { all: true };

export interface BulkDeleteResult {
  deleted: number;
  /** More memories match: call again (the batch is bounded). */
  hasMore: boolean;
}

export interface BulkDeleteDeps {
  memories: MemoryStore;
  audit: Pick<AuditService, 'record'>;
}

/** What the selector selects in the store's terms: ids (of this tenant, in the caller's namespaces), or a filter query. */
function selection(caller: MemoryCaller, selector: BulkDeleteSelector): { ids: readonly string[] } | { query: MemoryFilterQuery } {
  if ('ids' in selector) return { ids: [...new Set(selector.ids)] };
  const filters = 'filter' in selector ? selector.filter : {};
  return { query: memoryFilterQuery(caller.namespaces, filters) };
}

/** The selector as the audit log keeps it: its kind and filter, never content. */
function auditedSelector(selector: BulkDeleteSelector): Record<string, unknown> {
  if ('ids' in selector) return { selector: 'ids', requested: selector.ids.length };
  if ('filter' in selector) return { selector: 'filter', filter: selector.filter };
  return { selector: 'all' };
}

/**
 * Deletion of many memories at once (the portal's memory browser). Each memory goes through the
 * store's delete, the same cascade as `DELETE /memories/{id}` (versions, queued writes, search index
 * rows, merged duplicates, usage); one audit event records the count and the selector. Ids of another
 * tenant, or outside the caller's namespaces, are not found and not counted.
 */
export function createBulkDelete(deps: BulkDeleteDeps) {
  async function ownedIds(caller: MemoryCaller, ids: readonly string[]): Promise<string[]> {
    const found = await deps.memories.getHits(caller.tenantId, ids);
    return found.filter((m) => mayUseNamespace(caller.namespaces, m.namespace)).map((m) => m.id);
  }

  return {
    /** How many memories a deletion by `selector` would delete now (all batches), changing nothing. */
    async preview(caller: MemoryCaller, selector: BulkDeleteSelector): Promise<number> {
      const s = selection(caller, selector);
      if ('ids' in s) return (await ownedIds(caller, s.ids)).length;
      return deps.memories.count(caller.tenantId, s.query);
    },

    /** Deletes one batch (at most BULK_DELETE_BATCH) of what `selector` selects; audited once. */
    async delete(caller: MemoryCaller, selector: BulkDeleteSelector, by: AuditedBy): Promise<BulkDeleteResult> {
      const s = selection(caller, selector);
      const ids = 'ids' in s ? await ownedIds(caller, s.ids) : await deps.memories.matchingIds(caller.tenantId, s.query, BULK_DELETE_BATCH);
      let deleted = 0;
      // One at a time: each delete is its own short transaction, so writers are never held up by a thousand.
      for (const id of ids) if (await deps.memories.delete(caller.tenantId, id)) deleted++;
      const hasMore = 'ids' in s ? false : ids.length === BULK_DELETE_BATCH && (await deps.memories.count(caller.tenantId, s.query)) > 0;
      await deps.audit.record({
        tenantId: caller.tenantId,
        type: 'memory.bulk_delete',
        ...by,
        target: { type: 'tenant', id: caller.tenantId },
        details: { ...auditedSelector(selector), deleted, has_more: hasMore },
      });
      return { deleted, hasMore };
    },
  };
}

export type BulkDelete = ReturnType<typeof createBulkDelete>;
