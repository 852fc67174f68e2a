import type { MemoryStore, Sensitivity } from '../../../ports/memories.js';
import type { SearchIndex } from '../../../ports/search-index.js';

export interface MemoryMentionDeps {
  /** The tenant's memories that mention a name (the keyword channel of its own search index). */
  index: Pick<SearchIndex, 'search'>;
  memories: Pick<MemoryStore, 'getMany'>;
}

export interface MentioningMemory {
  id: string;
  /** The version `content` is: a memory's content changes only with its version. */
  version: number;
  content: string;
  createdAt: string;
  sensitivity: Sensitivity;
}

/**
 * The name is looked up by keyword alone: a fact only counts when a memory spells the name (or, for a
 * person, a first or last name) out, which is what the keyword channel finds; the graph channel cost
 * ~9× the time (bench:knowledge profile) and added memories that could not match.
 */
export const MENTION_SEARCH_MODE = 'hybrid' as const;

/**
 * The engines' one look-up of evidence: the tenant's memories that mention an object's name, most
 * relevant first, read only from the namespaces the run may read (null: every namespace). Only what a
 * default search returns counts: consolidated memories, superseded versions and injection-flagged ones left out.
 */
export function createMemoryMentions(deps: MemoryMentionDeps) {
  return async function mentioning(
    tenantId: string,
    name: string,
    namespaces: readonly string[] | null,
    limit: number,
  ): Promise<MentioningMemory[]> {
    const found = await deps.index.search(tenantId, {
      text: name,
      vector: null,
      mode: MENTION_SEARCH_MODE,
      limit,
      filters: { namespaces: namespaces === null ? null : [...namespaces] },
    });
    if (found.hits.length === 0) return [];
    const records = await deps.memories.getMany(
      tenantId,
      found.hits.map((h) => h.memoryId),
    );
    return records.map((m) => ({ id: m.id, version: m.version, content: m.content, createdAt: m.createdAt, sensitivity: m.sensitivity }));
  };
}
