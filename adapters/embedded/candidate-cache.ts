import type { MemoryCandidate } from '../../server/ports/memories.js';

/**
 * Recently read dedupe/contradiction candidates of the consolidating process, by memory id, each
 * valid for one committed version.
 *
 * Why: consolidation looks up ~6 keys per write, and the same recent memories of a busy subject come
 * back write after write. Reading their content columns again each time cost more than the index
 * lookups themselves (~6 µs a row through libsql). The store now asks SQLite only for the matching
 * ids and versions, and reads content for the ones this cache does not hold at that version.
 *
 * Why a version is enough: a candidate is a consolidated memory with nothing pending, so its content
 * is the content of its committed version, which never changes (a later write or a rollback makes a
 * new version). The entries are frozen because they are handed out to every later caller.
 */
export class CandidateCache {
  private readonly entries = new Map<string, MemoryCandidate>();

  constructor(private readonly capacity = 4096) {}

  /** The candidate when it is held at `version` (and marks it recently used). */
  get(id: string, version: number): MemoryCandidate | undefined {
    const hit = this.entries.get(id);
    if (hit === undefined || hit.committedVersion !== version) return undefined;
    this.entries.delete(id);
    this.entries.set(id, hit);
    return hit;
  }

  /** Holds a candidate read from the store, evicting the least recently used past the capacity. */
  put(candidate: MemoryCandidate): MemoryCandidate {
    Object.freeze(candidate.tags);
    const frozen = Object.freeze(candidate);
    this.entries.delete(candidate.id);
    this.entries.set(candidate.id, frozen);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return frozen;
  }

  get size(): number {
    return this.entries.size;
  }
}
