/**
 * Storage port of the API key aggregate. Every method is scoped by `tenantId` except
 * `findBySecretHash`, the authentication lookup, which is how a presented secret finds its tenant.
 *
 * The store never sees a secret: only its SHA-256 (lower-case hex, 64 characters) and a short
 * display prefix. Timestamps are RFC 3339 strings.
 */

export type ApiKeyStatus = 'active' | 'revoked';

/** What authenticating a request needs of a key: a lean projection, so the hot path reads nothing else. */
export interface ApiKeyCredential {
  id: string;
  tenantId: string;
  /** SHA-256 of the current secret, lower-case hex. */
  secretHash: string;
  status: ApiKeyStatus;
  /** Scope names as stored (validated by the service on create). */
  scopes: readonly string[];
  /** null: every namespace. */
  namespaceRestrictions: readonly string[] | null;
  /** Normalised addresses and CIDR ranges; null: any address. */
  ipAllowlist: readonly string[] | null;
  lastUsedAt: string | null;
}

export interface ApiKeyRecord extends ApiKeyCredential {
  name: string;
  /** Non-secret leading characters of the current secret, for display (`tmk_abcdefgh`). */
  secretPrefix: string;
  /** User who created the key, or null when created by the system. */
  createdBy: string | null;
  /**
   * User who received the current secret: the creator until someone rotates the key, then whoever
   * rotated it last (null: the system). Removing a member revokes the keys they hold.
   */
  secretIssuedTo: string | null;
  createdAt: string;
  rotatedAt: string | null;
  revokedAt: string | null;
}

export interface NewApiKeyRecord {
  id: string;
  name: string;
  scopes: readonly string[];
  namespaceRestrictions: readonly string[] | null;
  ipAllowlist: readonly string[] | null;
  secretHash: string;
  secretPrefix: string;
  createdBy: string | null;
  /** Who receives the first secret (the creator). */
  secretIssuedTo: string | null;
  createdAt: string;
}

export interface ApiKeyUsage {
  tenantId: string;
  keyId: string;
  /** RFC 3339; a stored later value is never moved back. */
  usedAt: string;
}

export interface ApiKeyStore {
  /** Inserts an active key. A duplicate secret hash is a programming error and throws. */
  insert(tenantId: string, key: NewApiKeyRecord): Promise<ApiKeyRecord>;
  /** Every key of the tenant, active and revoked, newest first. */
  list(tenantId: string): Promise<ApiKeyRecord[]>;
  get(tenantId: string, keyId: string): Promise<ApiKeyRecord | null>;
  /**
   * Replaces the secret of an ACTIVE key in one atomic step (the old hash stops matching at once),
   * recording `issuedTo` as the key's `secretIssuedTo`. Returns the updated key, or null when the
   * tenant has no active key with this id.
   */
  replaceSecret(
    tenantId: string,
    keyId: string,
    secret: { secretHash: string; secretPrefix: string; rotatedAt: string; issuedTo: string | null },
  ): Promise<ApiKeyRecord | null>;
  /**
   * Marks the key revoked. Returns the key after the call (also when it was already revoked:
   * `revokedAt` then keeps its first value), or null when the tenant has no key with this id.
   */
  revoke(tenantId: string, keyId: string, revokedAt: string): Promise<{ key: ApiKeyRecord; changed: boolean } | null>;
  /**
   * The authentication lookup: the key whose current secret has this hash, in any tenant and any
   * status (so a revoked key can be told from an unknown one); null if none.
   */
  findBySecretHash(secretHash: string): Promise<ApiKeyCredential | null>;
  /** Records uses in one batch; each key's `lastUsedAt` only moves forward. */
  recordUsage(uses: readonly ApiKeyUsage[]): Promise<void>;
}
