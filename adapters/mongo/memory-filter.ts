import type { Filter } from 'mongodb';
import type { MemoryFilterQuery } from '../../server/ports/memories.js';
import type { MemoryDoc } from './memory-collections.js';

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The filter of a memory list, count or bulk-deletion batch (one translation of the filters, so what a
 * list shows is what a deletion by the same filter takes). Null: an empty namespace list selects nothing.
 */
export function memoryFilterOf(tenantId: string, q: MemoryFilterQuery): Filter<MemoryDoc> | null {
  if (q.namespaces !== null && q.namespaces.length === 0) return null;
  const filter: Filter<MemoryDoc> = { tenantId };
  if (q.namespaces !== null) filter.namespace = { $in: [...q.namespaces] };
  if (q.text) {
    const re = new RegExp(escapeRegex(q.text), 'i');
    filter.$or = [{ title: re }, { content: re }];
  }
  if (q.type) filter.type = q.type;
  if (q.sensitivity) filter.sensitivity = q.sensitivity;
  if (q.status) filter.status = q.status;
  if (q.contradiction) filter.contradictionStatus = q.contradiction;
  if (q.from || q.to) filter.createdAt = { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lte: q.to } : {}) };
  if (!q.includeMerged) filter.mergedInto = null;
  return filter;
}
