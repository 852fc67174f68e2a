import type { TenantRecord, TenantsPort } from '../../server/ports/tenants.js';
import type { ChangeSignal } from './change-signal.js';

export interface TenantCacheOptions {
  /** Longest a tenant record is trusted without reading it again, whatever the signal says (default 30 s). */
  maxAgeMs?: number;
  /** Entries kept before the cache starts over (default 10,000). */
  maxEntries?: number;
  clock?: () => number;
  /** Told when a change could not be signalled; this process then stops remembering tenants. */
  onSignalError?: (error: unknown) => void;
}

/**
 * `TenantsPort.get` remembered in the process: every authenticated request asks whether its tenant is
 * still active, and on the X-API-Key path that would add back the SQLite read the credential cache
 * took away. A suspension must still take effect at once in every process on the data directory, so
 * this follows the credential cache's scheme (`credential-cache.ts`): `setStatus` bumps the change
 * signal after its commit, and a lookup drops everything when the signal's stamp differs from the one
 * its entries were read under. `maxAgeMs` bounds the one case the signal cannot cover (a process
 * killed between the commit and the bump). Every method that changes a tenant record must bump.
 */
export function withTenantCache(port: TenantsPort, signal: ChangeSignal, options: TenantCacheOptions = {}): TenantsPort {
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, { tenant: TenantRecord; at: number }>();
  let filledUnder: string | null = null;
  let bypass = false;

  return {
    ...port,
    async setStatus(tenantId, status) {
      try {
        return await port.setStatus(tenantId, status);
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

    async get(tenantId) {
      const stamp = bypass ? null : signal.stamp();
      if (stamp === null) {
        entries.clear();
        filledUnder = null;
        return port.get(tenantId);
      }
      if (stamp !== filledUnder) {
        entries.clear();
        filledUnder = stamp;
      }
      const now = clock();
      const hit = entries.get(tenantId);
      if (hit && now - hit.at < maxAgeMs) return hit.tenant;
      const found = await port.get(tenantId);
      if (!found) return null;
      const tenant = Object.freeze({ ...found });
      // Kept only if no lookup saw a newer stamp while this row was read (it may predate that change).
      if (filledUnder === stamp) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(tenantId, { tenant, at: now });
      }
      return tenant;
    },
  };
}
