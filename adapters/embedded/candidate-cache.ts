import type { MemoryCandidate } from '../../server/ports/memories.js';

/**
 * Recently read dedupe/contradiction candidates of the consolidating process, by memory id, each
 * valid for one committed version.
 *
 * Why: consolidation looks up to 6 keys per write, and the same recent memories of a busy subject come
 * back write after write. Reading their content columns again each time cost more than the index lookups
 * themselves (figures: docs/performance.md#candidate-content-cache). The store now asks
 * SQLite only for the matching ids and versions, and reads content for the ones this cache does not
 * hold at that version.
 *
 * Why a version is enough: a candidate is a consolidated memory with nothing pending, so its content
 * is the content of its committed version, which never changes (a later write or a rollback makes a
 * new version). The entries are frozen because they are handed out to every later caller.
 *
 * Bounded by entries and by the text it holds (content up to the configured limit per memory would
 * otherwise let 4,096 entries reach hundreds of MiB). A deleted memory's entry is dropped by the store
 * at once, so its content does not outlive the delete in this process either.
 */
export class CandidateCache {
  private readonly entries = new Map<string, MemoryCandidate>();
  private chars = 0;

  constructor(
    private readonly maxEntries = 4096,
    /** Characters of title + content held, ~2 bytes each: 8 Mi characters ≈ 16 MiB. */
    private readonly maxChars = 8 * 1024 * 1024,
  ) {}

  /** The candidate when it is held at `version` (and marks it recently used); an older version is dropped. */
  get(id: string, version: number): MemoryCandidate | undefined {
    const hit = this.entries.get(id);
    if (hit === undefined) return undefined;
    this.entries.delete(id);
    if (hit.committedVersion !== version) {
      this.chars -= charsOf(hit);
      return undefined;
    }
    this.entries.set(id, hit);
    return hit;
  }

  /** Holds a candidate read from the store, evicting the least recently used past either bound. */
  put(candidate: MemoryCandidate): MemoryCandidate {
    Object.freeze(candidate.tags);
    const frozen = Object.freeze(candidate);
    this.delete(candidate.id);
    const size = charsOf(frozen);
    if (size > this.maxChars) return frozen; // larger than the whole budget: not held
    this.entries.set(candidate.id, frozen);
    this.chars += size;
    while (this.entries.size > this.maxEntries || this.chars > this.maxChars) {
      this.delete(this.entries.keys().next().value!);
    }
    return frozen;
  }

  /** Forgets a memory (deleted, or no longer a candidate). */
  delete(id: string): void {
    const held = this.entries.get(id);
    if (held === undefined) return;
    this.entries.delete(id);
    this.chars -= charsOf(held);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Characters of title and content held (what the byte bound counts). */
  get heldChars(): number {
    return this.chars;
  }
}

function charsOf(c: MemoryCandidate): number {
  return c.content.length + c.title.length;
}
