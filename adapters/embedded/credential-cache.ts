import type { ApiKeyCredential, ApiKeyStore } from '../../server/ports/api-keys.js';
import type { ChangeSignal } from './change-signal.js';

export interface CredentialCacheOptions {
  /** Longest a looked-up key is trusted without reading it again, whatever the signal says (default 30 s). */
  maxAgeMs?: number;
  /** Entries kept before the cache starts over (default 10,000). */
  maxEntries?: number;
  clock?: () => number;
}

/**
 * The authentication lookup of the embedded profile, remembered in the process: every X-API-Key
 * request looks its key up, and that SQLite read was ~8% of an accepted write's CPU in a profile of
 * the write bench (~40 µs in the server, where the read transaction's locks and a cold cache add to
 * the ~12 µs it takes in a tight loop).
 *
 * Rotation and revocation must still take effect at once, in every process on the data directory:
 * they bump the change signal after their commit, and a lookup drops everything it remembers when the
 * signal's stamp differs from the one its entries were read under (the stamp is read BEFORE the row, so
 * a row read across a change is dropped by the next lookup). `maxAgeMs` bounds the one case the
 * signal cannot cover: a process killed between committing a revocation and bumping the signal.
 * Unknown secrets are not remembered, so a key made in another process is found at once.
 */
export function withCredentialCache(store: ApiKeyStore, signal: ChangeSignal, options: CredentialCacheOptions = {}): ApiKeyStore {
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, { credential: ApiKeyCredential; at: number }>();
  let filledUnder: string | null = null;

  const changed = () => {
    entries.clear();
    signal.bump();
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
      const stamp = signal.stamp();
      if (stamp !== filledUnder) {
        entries.clear();
        filledUnder = stamp;
      }
      const now = clock();
      const hit = entries.get(secretHash);
      if (hit && now - hit.at < maxAgeMs) return hit.credential;
      const credential = await store.findBySecretHash(secretHash);
      if (credential) {
        if (entries.size >= maxEntries) entries.clear();
        // Shared by every request of the key until dropped: nobody may change it.
        entries.set(secretHash, { credential: Object.freeze(credential), at: now });
      }
      return credential;
    },
  };
}
