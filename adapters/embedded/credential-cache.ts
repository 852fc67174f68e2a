import type { ApiKeyCredential, ApiKeyStore } from '../../server/ports/api-keys.js';
import type { ChangeSignal } from './change-signal.js';

export interface CredentialCacheOptions {
  /** Longest a looked-up key is trusted without reading it again, whatever the signal says (default 30 s). */
  maxAgeMs?: number;
  /** Entries kept before the cache starts over (default 10,000). */
  maxEntries?: number;
  clock?: () => number;
  /** Told when a change could not be signalled; this process then stops remembering keys. */
  onSignalError?: (error: unknown) => void;
}

/**
 * The authentication lookup of the embedded profile, remembered in the process: every X-API-Key
 * request looks its key up, and that SQLite read was ~8% of an accepted write's CPU in a profile of
 * the write bench (~40 µs in the server, where the read transaction's locks and a cold cache add to
 * the ~12 µs it takes in a tight loop).
 *
 * Rotation and revocation must still take effect at once, in every process on the data directory:
 * they bump the change signal after their commit, and a lookup drops everything it remembers when the
 * signal's stamp differs from the one its entries were read under. The stamp is read before the row,
 * and the row is kept only if no other lookup saw a newer stamp while it was being read, so a row read
 * across a change never outlives it. `maxAgeMs` bounds the one case the
 * signal cannot cover: a process killed between committing a revocation and bumping the signal.
 * Unknown secrets are not remembered, so a key made in another process is found at once.
 *
 * When the signal fails (its file cannot be written or read), the rotation or revocation itself still
 * stands and is answered; the process stops remembering keys, since it can no longer tell the others
 * or hear from them reliably, and the others' entries expire within `maxAgeMs`.
 */
export function withCredentialCache(store: ApiKeyStore, signal: ChangeSignal, options: CredentialCacheOptions = {}): ApiKeyStore {
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, { credential: ApiKeyCredential; at: number }>();
  let filledUnder: string | null = null;
  /** Set for good once the signal failed: every lookup then reads the store. */
  let bypass = false;

  const changed = () => {
    entries.clear();
    try {
      signal.bump();
    } catch (error) {
      bypass = true;
      options.onSignalError?.(error);
    }
  };

  return {
    insert: (tenantId, key) => store.insert(tenantId, key),
    list: (tenantId) => store.list(tenantId),
    get: (tenantId, keyId) => store.get(tenantId, keyId),
    recordUsage: (uses) => store.recordUsage(uses),

    async replaceSecret(tenantId, keyId, secret) {
      try {
        return await store.replaceSecret(tenantId, keyId, secret);
      } finally {
        changed();
      }
    },

    async revoke(tenantId, keyId, revokedAt) {
      try {
        return await store.revoke(tenantId, keyId, revokedAt);
      } finally {
        changed();
      }
    },

    async findBySecretHash(secretHash) {
      const stamp = bypass ? null : signal.stamp();
      if (stamp === null) {
        entries.clear();
        filledUnder = null;
        return store.findBySecretHash(secretHash);
      }
      if (stamp !== filledUnder) {
        entries.clear();
        filledUnder = stamp;
      }
      const now = clock();
      const hit = entries.get(secretHash);
      if (hit && now - hit.at < maxAgeMs) return hit.credential;
      const found = await store.findBySecretHash(secretHash);
      if (!found) return null;
      const credential = frozen(found);
      // Kept only if nothing changed while the row was read: another lookup may have seen a newer
      // stamp meanwhile (and emptied the cache), and this row may predate that change.
      if (filledUnder === stamp) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(secretHash, { credential, at: now });
      }
      return credential;
    },
  };
}

/** Shared by every request of the key until dropped: nobody may change it, nor its lists. */
function frozen(c: ApiKeyCredential): ApiKeyCredential {
  return Object.freeze({
    ...c,
    scopes: Object.freeze([...c.scopes]),
    namespaceRestrictions: c.namespaceRestrictions && Object.freeze([...c.namespaceRestrictions]),
    ipAllowlist: c.ipAllowlist && Object.freeze([...c.ipAllowlist]),
  });
}
