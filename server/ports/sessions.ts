/**
 * Sign-in sessions (Lucia's model, implemented directly). A session is identified by a random,
 * non-secret id (the access token's `sid`); the refresh tokens that keep it alive are
 * `<id>.<secret>` pairs of which only SHA-256(secret) is stored. Times are RFC 3339 strings (`Date#toISOString`, so they compare as strings).
 */
export type SessionChannel = 'api' | 'portal';

export interface SessionRecord {
  id: string;
  userId: string;
  /** The tenant the session signed in to (the access token's `tid`). */
  tenantId: string;
  /** How the user authenticated: `password` or `sso`. */
  method: 'password' | 'sso';
  /**
   * Which door the session serves: `api`, bearer tokens (a JWT plus rotating refresh tokens); `portal`,
   * the web portal's cookie, whose one credential is stored like a refresh token but never rotates and
   * is never accepted where a refresh token is (and no JWT is ever issued for it).
   */
  channel: SessionChannel;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  /** When the user last proved who they are (sign-in); refresh does not move it. */
  authenticatedAt: string;
  /** Sliding expiry: moved forward on every refresh. */
  expiresAt: string;
  revokedAt: string | null;
  revokeReason: string | null;
}

export interface RefreshTokenRecord {
  /** Public part of the token; primary key. */
  id: string;
  sessionId: string;
  /** SHA-256 of the secret part. */
  secretHash: Uint8Array;
  createdAt: string;
  /** Set when the token was exchanged; a later presentation is reuse. */
  rotatedAt: string | null;
}

export type RotateResult = 'rotated' | 'already_rotated';

export interface SessionStore {
  /** Stores a new session with its first refresh token. */
  create(session: SessionRecord, refresh: RefreshTokenRecord): Promise<void>;
  get(sessionId: string): Promise<SessionRecord | null>;
  findRefreshToken(tokenId: string): Promise<RefreshTokenRecord | null>;
  /**
   * Atomically marks `oldTokenId` rotated (only if it was not already), stores `next` and moves the
   * session's expiry. `already_rotated` means someone exchanged it first: the caller treats that as reuse.
   */
  rotateRefreshToken(oldTokenId: string, rotatedAt: string, next: RefreshTokenRecord, sessionExpiresAt: string): Promise<RotateResult>;
  /** Ends a session (no-op if already revoked); its access and refresh tokens stop working. */
  revoke(sessionId: string, at: string, reason: string): Promise<void>;
  /** Ends every live session of a user (e.g. after a password change). */
  revokeAllForUser(userId: string, at: string, reason: string): Promise<number>;
  /**
   * Deletes sessions that ended before `before` (expired, or revoked) with their refresh tokens;
   * returns how many sessions went. A token of a deleted session is simply unknown (401).
   */
  purgeEnded(before: string): Promise<number>;
}
