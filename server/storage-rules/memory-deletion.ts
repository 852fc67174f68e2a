/**
 * Deleting a memory, the same on both stores: its row, every version, its queued writes, its subject
 * keys and its search index rows go at once; so do the duplicates merged into it (they hold nearly its
 * content), each the same way. Only a memory that still counted gives its storage back.
 */

/** The tenant's totals after deleting this row: a merged duplicate stopped counting when it was merged. */
export function deletionUsage(deleted: { sizeBytes: number; mergedInto: string | null }): { memories: number; bytes: number } | null {
  return deleted.mergedInto === null ? { memories: -1, bytes: -deleted.sizeBytes } : null;
}
