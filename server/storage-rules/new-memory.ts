import type { MemoryContent, MemoryRecord, Sensitivity } from '../ports/memories.js';

/**
 * Until a write is consolidated its content is unclassified: a memory shows the writer's sensitivity,
 * or `high` when the writer gave none (unknown is treated as sensitive, never as harmless).
 */
export function provisionalSensitivity(writer: Sensitivity | null): Sensitivity {
  return writer ?? 'high';
}

/** A memory as its create leaves it: the head of version 1, nothing consolidated yet. */
export interface NewMemory extends MemoryRecord {
  /** No consolidated content yet, so nothing to look duplicates up by. */
  fingerprint: null;
  subjects: string[];
  committedAt: null;
}

/**
 * The new memory row of an accepted create, with every consolidated field at its "not yet
 * consolidated" value: active, clear of contradictions, unscreened, quality 0, the writer's
 * provisional sensitivity. Both stores write exactly this.
 */
export function newMemory(
  tenantId: string,
  id: string,
  namespace: string,
  content: MemoryContent,
  sizeBytes: number,
  at: string,
): NewMemory {
  return {
    id,
    tenantId,
    namespace,
    ...content,
    sensitivity: provisionalSensitivity(content.writerSensitivity),
    sensitivityReasons: [],
    status: 'active',
    version: 1,
    committedVersion: 0,
    pendingCount: 1,
    contradictionStatus: 'clear',
    contradictionPolicy: null,
    conflictsWith: [],
    supersededBy: null,
    mergedInto: null,
    injectionFlagged: false,
    injectionScore: 0,
    injectionPatterns: [],
    quality: 0,
    fingerprint: null,
    subjects: [],
    sizeBytes,
    createdAt: at,
    updatedAt: at,
    committedAt: null,
  };
}
