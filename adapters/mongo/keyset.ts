import type { MemoryOrderKey } from '../../server/ports/memories.js';

/**
 * Keyset paging over the `memories_tenant_created` index (tenantId, createdAt −1, _id −1): a page
 * starts strictly after the last one's final memory, so every page is one index range however deep,
 * where `skip` walks and discards every memory before it.
 */
export const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

/** The condition "after `key` in newest-first order" (nothing for the first page). */
export function keysetBefore(key: MemoryOrderKey | null): { $or?: object[] } {
  if (!key) return {};
  return { $or: [{ createdAt: { $lt: key.createdAt } }, { createdAt: key.createdAt, _id: { $lt: key.id } }] };
}
