import type { z } from 'zod';
import type { MemoryRecord } from '../../server/ports/memories.js';
import type { BulkDeleteSelector } from '../../server/services/memories/bulk-delete.js';
import type { MemoryFilters } from '../../server/services/memories/memory-filters.js';
import { validation } from '../../server/errors.js';
import {
  PORTAL_MEMORY_PREVIEW_CHARS,
  type portalBulkDeleteInput,
  type portalMemoryFilter,
  type portalMemoryListItem,
} from './memories-schemas.js';

/** The portal memory browser's wire form (snake_case) of what the memory service takes and returns. */

export function fromPortalFilter(f: z.output<typeof portalMemoryFilter>): MemoryFilters {
  return {
    q: f.q,
    type: f.type,
    sensitivity: f.sensitivity,
    status: f.status,
    contradiction: f.contradiction,
    namespace: f.namespace,
    from: f.created_from,
    to: f.created_to,
  };
}

/** Exactly one of ids, filter or all (400 otherwise): an empty body must never mean "everything". */
export function fromBulkDeleteBody(body: z.output<typeof portalBulkDeleteInput>): BulkDeleteSelector {
  const given = [body.ids !== undefined, body.filter !== undefined, body.all !== undefined].filter(Boolean).length;
  if (given !== 1) throw validation('ids', 'give exactly one of ids, filter or all');
  if (body.ids !== undefined) return { ids: body.ids };
  if (body.filter !== undefined) {
    // `{filter: {}}` would select every memory: "everything" is only ever said with `all: true`.
    if (Object.values(body.filter).every((v) => v === undefined)) throw validation('filter', 'give at least one condition, or all: true');
    return { filter: fromPortalFilter(body.filter) };
  }
  return { all: true };
}

export function toPortalMemoryListItem(m: MemoryRecord): z.output<typeof portalMemoryListItem> {
  return {
    id: m.id,
    type: m.type,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
    sensitivity: m.sensitivity,
    status: m.status,
    contradiction: m.contradictionStatus,
    title: m.title,
    tags: m.tags,
    namespace: m.namespace,
    version: m.version,
    dirty: m.pendingCount > 0,
    injection_flagged: m.injectionFlagged,
    preview: [...m.content].slice(0, PORTAL_MEMORY_PREVIEW_CHARS).join(''),
  };
}
