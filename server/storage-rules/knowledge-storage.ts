import type { StorageQuota } from '../ports/knowledge.js';

/**
 * Whether a knowledge object write that moves the tenant's stored bytes by `deltaBytes` passes the
 * storage quota, given the total stored so far. Shrinking (or staying the same) is always allowed, so
 * a tenant over its plan can still trim objects; the same rule as memories (`sizeLimitExceeded`).
 */
export function storageQuotaExceeded(quota: StorageQuota, storedBytes: number, deltaBytes: number): boolean {
  return deltaBytes > 0 && quota.storageBytes !== null && storedBytes + deltaBytes > quota.storageBytes;
}
