import type { TenantRecord, TenantStore } from '../../server/ports/tenants.js';
import type { ChangeSignal } from './change-signal.js';
import { createSignalledCache, type SignalledCacheOptions } from './signalled-cache.js';

export type TenantCacheOptions = SignalledCacheOptions;

/**
 * `TenantStore.get` remembered in the process (`signalled-cache.ts`): every authenticated request asks
 * whether its tenant is still active, and on the X-API-Key path that would add back the SQLite read the
 * credential cache took away. A suspension takes effect at once in every process on the data
 * directory: `setStatus` goes through the cache's `change`. Every method that changes a tenant record
 * must.
 */
export function withTenantCache(port: TenantStore, signal: ChangeSignal, options: TenantCacheOptions = {}): TenantStore {
  const cache = createSignalledCache<TenantRecord>(signal, (tenant) => Object.freeze({ ...tenant }), options);
  return {
    ...port,
    setStatus: (tenantId, status) => cache.change(() => port.setStatus(tenantId, status)),
    get: (tenantId) => cache.read(tenantId, () => port.get(tenantId)),
  };
}
