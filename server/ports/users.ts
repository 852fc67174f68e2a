/**
 * Users and their external (SSO) identities. Users are global: a user belongs to tenants through
 * memberships (see tenants.ts). Emails are stored lower-cased and are unique.
 */
export interface UserRecord {
  id: string;
  /** Lower-cased. */
  email: string;
  name: string | null;
  /** argon2id PHC string; null for users who only sign in through SSO. */
  passwordHash: string | null;
  /** ISO 8601. */
  createdAt: string;
}

export interface ExternalIdentityRecord {
  /** OIDC provider id (config OIDC_PROVIDERS[].id). */
  provider: string;
  /** The provider's `sub` claim. */
  subject: string;
  userId: string;
  email: string | null;
  /** ISO 8601. */
  createdAt: string;
}

export interface UserStore {
  /** Inserts a user; null when the (lower-cased) email is already taken. */
  create(user: UserRecord): Promise<UserRecord | null>;
  findById(userId: string): Promise<UserRecord | null>;
  /** Looks up by email, case-insensitively. */
  findByEmail(email: string): Promise<UserRecord | null>;
  setPasswordHash(userId: string, passwordHash: string | null): Promise<void>;
  /** Removes a user (compensation when provisioning fails half-way); memberships go with it. */
  delete(userId: string): Promise<void>;
  /** Links a provider subject to a user; false when that (provider, subject) is already linked. */
  linkIdentity(identity: ExternalIdentityRecord): Promise<boolean>;
  findByIdentity(provider: string, subject: string): Promise<UserRecord | null>;
  listIdentities(userId: string): Promise<ExternalIdentityRecord[]>;
}
