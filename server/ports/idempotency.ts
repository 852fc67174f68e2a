/**
 * Storage port of idempotency records: per tenant, a client's `Idempotency-Key` remembers the
 * request's hash and the result it got, until it expires. The memory write queue reads and stores its
 * records inside the enqueue transaction; this port only purges the expired ones.
 */

export interface IdempotencyStore {
  /** Removes expired records of every tenant; returns how many. */
  purgeExpired(now: string): Promise<number>;
}
