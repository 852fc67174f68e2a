/**
 * The storage ports of every aggregate, as one bundle a profile provides. Each port lives in its
 * own file; tenant-scoped methods take `tenantId` first so cross-tenant access cannot be expressed.
 */
export interface StoragePorts {
  /** Cheap round trip to the backing store, for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
