import type { ApiKeyStore } from './api-keys.js';
/**
 * The storage ports of every aggregate, as one bundle a profile provides. Each port lives in its
 * own file; tenant-scoped methods take `tenantId` first so cross-tenant access cannot be expressed.
 */
export interface StoragePorts {
  apiKeys: ApiKeyStore;
  /** Cheap round trip to the backing store, for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
