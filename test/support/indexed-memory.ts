import type { IndexedMemory } from '../../server/ports/search-index.js';

/** An active, unflagged memory of the default namespace as the search index receives it (no vector unless given). */
export function indexedMemory(memoryId: string, content: string, extra: Partial<IndexedMemory> = {}): IndexedMemory {
  return {
    memoryId,
    namespace: 'default',
    agentId: null,
    title: '',
    content,
    tags: [],
    status: 'active',
    injectionFlagged: false,
    quality: 1,
    createdAt: '2025-01-01T00:00:00.000Z',
    vector: null,
    entities: [],
    ...extra,
  };
}
