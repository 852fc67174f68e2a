/**
 * Counters of attempts within a time window (failed sign-ins, per-address budgets), kept in the profile's store so every
 * process and instance of the service counts together. The shape is rate-limiter-flexible's, whose
 * store-backed limiters the profiles provide.
 */
export interface AttemptCounter {
  /** The key's count in its current window, or null when it has none. */
  get(key: string): Promise<{ consumedPoints: number; msBeforeNext: number } | null>;
  /**
   * Adds `points` to the key's count (starting a window when it has none), atomically in the store, and
   * answers the count after it: check-then-add would let concurrent requests all pass.
   */
  penalty(key: string, points: number): Promise<{ consumedPoints: number; msBeforeNext: number }>;
  /**
   * Takes `points` back from the key's count, atomically, for an attempt reserved and then not spent.
   * Into a key without a live window it starts one below zero: callers give back only within the
   * window they were charged in.
   */
  reward(key: string, points: number): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

export interface AttemptCounters {
  /** One counter family: `keyPrefix` keeps families apart in one store; `duration` is the window in seconds. */
  counter(options: { keyPrefix: string; points: number; duration: number }): AttemptCounter;
  /** Deletes counts whose window ended before `nowMs` (a store with its own expiry may do nothing). */
  purgeExpired(nowMs: number): Promise<number>;
}
