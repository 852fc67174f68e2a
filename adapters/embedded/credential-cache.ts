import type { ApiKeyCredential, ApiKeyStore } from '../../server/ports/api-keys.js';
import type { ChangeSignal } from './change-signal.js';
import { createSignalledCache, type SignalledCacheOptions } from './signalled-cache.js';

export type CredentialCacheOptions = SignalledCacheOptions;

/**
 * The authentication lookup of the embedded profile, remembered in the process (`signalled-cache.ts`):
 * every X-API-Key request looks its key up, and that SQLite read was a noticeable share of an accepted
 * write's CPU (figures: docs/performance.md#api-keys-and-tenants-remembered-per-process). Rotation and revocation take effect at once in
 * every process on the data directory: they are the store's changes that go through the cache's
 * `change`, which signals the other processes after the commit.
 */
export function withCredentialCache(store: ApiKeyStore, signal: ChangeSignal, options: CredentialCacheOptions = {}): ApiKeyStore {
  const cache = createSignalledCache<ApiKeyCredential>(signal, frozen, options);
  // Every method listed, none spread: a new store method that changes a key must be routed here by hand.
  return {
    insert: (tenantId, key) => store.insert(tenantId, key),
    list: (tenantId) => store.list(tenantId),
    get: (tenantId, keyId) => store.get(tenantId, keyId),
    recordUsage: (uses) => store.recordUsage(uses),
    replaceSecret: (tenantId, keyId, secret) => cache.change(() => store.replaceSecret(tenantId, keyId, secret)),
    revoke: (tenantId, keyId, revokedAt) => cache.change(() => store.revoke(tenantId, keyId, revokedAt)),
    findBySecretHash: (secretHash) => cache.read(secretHash, () => store.findBySecretHash(secretHash)),
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
