/**
 * Step-up tokens: short-lived proofs of recent re-authentication, bound to one user, tenant, session
 * and action. Stored as `<id>.<secret>` with only SHA-256(secret) kept. Times are RFC 3339 strings (`Date#toISOString`, so they compare as strings).
 */
export interface StepUpTokenRecord {
  id: string;
  secretHash: Uint8Array;
  userId: string;
  tenantId: string;
  sessionId: string;
  action: string;
  createdAt: string;
  expiresAt: string;
}

export interface StepUpTokenStore {
  create(token: StepUpTokenRecord): Promise<void>;
  /** Tenant-scoped: a token of another tenant is not found. */
  find(tenantId: string, tokenId: string): Promise<StepUpTokenRecord | null>;
  delete(tenantId: string, tokenId: string): Promise<void>;
  /** Housekeeping: drops tokens that expired before `before`. */
  deleteExpired(before: string): Promise<number>;
}
