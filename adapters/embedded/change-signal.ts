import { appendFileSync, statSync } from 'node:fs';

/**
 * "Something changed" between processes that share one data directory (`serve --processes N`, a second
 * service on the same DATA_DIR), for caches whose misses are cheap but whose staleness is not: a
 * process that changes the data calls `bump()` after committing; every reader compares `stamp()` with
 * the stamp its cache was filled under before trusting it.
 *
 * The signal is one file: `bump()` appends a byte, `stamp()` is its inode and size (one `stat`; figures:
 * docs/performance.md#change-signal).
 * Size grows with every bump, so no two bumps share a stamp, which modification times (kept at the
 * kernel's tick, several milliseconds) would not guarantee; the inode catches a file deleted and made
 * again. The file grows by a byte per change of the data it guards (rare events: key rotations and
 * revocations), never on reads.
 */
export interface ChangeSignal {
  /** The current stamp; null when it cannot be read (then nothing may be trusted from memory). */
  stamp(): string | null;
  /** Throws when the change could not be signalled. */
  bump(): void;
}

export function fileChangeSignal(file: string): ChangeSignal {
  return {
    stamp() {
      try {
        const s = statSync(file, { throwIfNoEntry: false });
        return s ? `${s.ino}:${s.size}` : 'absent';
      } catch {
        return null; // e.g. the directory became unreadable
      }
    },
    bump() {
      // Owner-only like everything in DATA_DIR (a creation mode can only be narrowed by the umask).
      appendFileSync(file, '\n', { mode: 0o600 });
    },
  };
}
