import type { IndexChange, IndexRemoval, IndexedMemory } from '../../ports/search-index.js';

/** What a list of index changes leaves behind: each memory either upserted (its last document) or removed. */
export interface NetIndexChanges {
  upserts: IndexedMemory[];
  removals: IndexRemoval[];
}

/**
 * The rule both index adapters apply a batch by (`SearchIndex.applyChanges`): a memory's last change
 * wins, so a batch never writes a document a later change of the batch removed, nor removes one it
 * wrote after. Memories keep the order of their first change; the two lists never share an id, so an
 * adapter may send them in either order (and each as one request).
 */
export function netIndexChanges(changes: readonly IndexChange[]): NetIndexChanges {
  const last = new Map<string, IndexChange>();
  for (const c of changes) {
    const id = c.op === 'upsert' ? c.doc.memoryId : c.memoryId;
    // Setting an existing key keeps its position: memories stay in the order of their first change.
    last.set(id, c);
  }
  const upserts: IndexedMemory[] = [];
  const removals: IndexRemoval[] = [];
  for (const c of last.values()) {
    if (c.op === 'upsert') upserts.push(c.doc);
    else
      removals.push(
        c.committedVersion === undefined ? { memoryId: c.memoryId } : { memoryId: c.memoryId, committedVersion: c.committedVersion },
      );
  }
  return { upserts, removals };
}
