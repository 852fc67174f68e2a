import type { ChangeSignal } from './change-signal.js';

export interface SignalledCacheOptions {
  /** Longest a remembered row is trusted without reading it again, whatever the signal says (default 30 s). */
  maxAgeMs?: number;
  /** Entries kept before the cache starts over (default 10,000). */
  maxEntries?: number;
  clock?: () => number;
  /** Told when a change could not be signalled; this process then stops remembering rows. */
  onSignalError?: (error: unknown) => void;
}

/** Rows of one lookup remembered in the process, forgotten in every process when one of them changes a row. */
export interface SignalledCache<V> {
  /** The remembered row for `key`, or `load`'s (remembered when found). */
  read(key: string, load: () => Promise<V | null>): Promise<V | null>;
  /** Runs a change of the store, then forgets everything here and tells the other processes, even when it failed. */
  change<T>(apply: () => Promise<T>): Promise<T>;
}

/**
 * The embedded profile's scheme for lookups on every request (API keys, tenants): a change must take
 * effect at once in every process on the data directory, so a change bumps the change signal after its
 * commit, and a read drops everything it remembers when the signal's stamp differs from the one its
 * entries were read under. The stamp is read before the row, and the row is kept only if no other read
 * saw a newer stamp while it was being read, so a row read across a change never outlives it.
 * `maxAgeMs` bounds the one case the signal cannot cover: a process killed between committing a change
 * and bumping the signal. Unknown keys are not remembered, so a row made in another process is found
 * at once. When the signal fails, the change itself still stands; this process stops remembering,
 * since it can no longer tell the others or hear from them reliably, and their entries expire within
 * `maxAgeMs`. `freeze` makes a remembered row safe to share between requests.
 */
export function createSignalledCache<V>(
  signal: ChangeSignal,
  freeze: (row: V) => V,
  options: SignalledCacheOptions = {},
): SignalledCache<V> {
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, { row: V; at: number }>();
  let filledUnder: string | null = null;
  /** Set for good once the signal failed: every read goes to the store. */
  let bypass = false;

  return {
    async read(key, load) {
      const stamp = bypass ? null : signal.stamp();
      if (stamp === null) {
        entries.clear();
        filledUnder = null;
        return load();
      }
      if (stamp !== filledUnder) {
        entries.clear();
        filledUnder = stamp;
      }
      const now = clock();
      const hit = entries.get(key);
      if (hit && now - hit.at < maxAgeMs) return hit.row;
      const found = await load();
      if (found === null) return null;
      const row = freeze(found);
      // Kept only if nothing changed while the row was read: another read may have seen a newer
      // stamp meanwhile (and emptied the cache), and this row may predate that change.
      if (filledUnder === stamp) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(key, { row, at: now });
      }
      return row;
    },

    async change(apply) {
      try {
        return await apply();
      } finally {
        entries.clear();
        try {
          signal.bump();
        } catch (error) {
          bypass = true;
          options.onSignalError?.(error);
        }
      }
    },
  };
}
