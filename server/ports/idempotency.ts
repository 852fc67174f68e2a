/**
 * Storage port of idempotency records: per tenant, a client's `Idempotency-Key` remembers the
 * request's hash and the result it got, until it expires. The memory write queue stores its records
 * through the same table inside the enqueue transaction; other areas use this port directly.
 */

export interface IdempotencyRecord {
  key: string;
  /** SHA-256 of the request (operation, path, body). */
  requestHash: string;
  /** The stored result (JSON). */
  response: unknown;
  /** RFC 3339. */
  createdAt: string;
  expiresAt: string;
}

export interface IdempotencyStore {
  /** The live record of the key, or null (expired records are not returned). */
  get(tenantId: string, key: string, now: string): Promise<IdempotencyRecord | null>;
  /** Stores the record unless a live one exists for the key; returns the existing live record, or null when stored. */
  putIfAbsent(tenantId: string, record: IdempotencyRecord): Promise<IdempotencyRecord | null>;
  /** Removes expired records of every tenant; returns how many. */
  purgeExpired(now: string): Promise<number>;
}
