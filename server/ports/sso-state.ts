/**
 * Pending SSO logins, between `POST /auth/sso/login` and `GET /auth/callback`. Not tenant-scoped:
 * nobody is signed in yet. The state is the lookup key and is stored only as its SHA-256 hash (hex);
 * nonce and PKCE verifier are kept as they are (they must be sent to the provider) and live at most
 * until `expiresAt`.
 */
export interface PendingLogin {
  /** SHA-256 of the state parameter, lowercase hex. */
  stateHash: string;
  providerId: string;
  nonce: string;
  codeVerifier: string;
  /** The redirect URI sent in the authorization request; the token request must repeat it. */
  redirectUri: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface SsoStateStore {
  save(login: PendingLogin): Promise<void>;
  /**
   * Removes the pending login with this state hash and returns it, atomically: of two concurrent
   * calls at most one gets it. Returns null when there is none or when it expired at `now`
   * (an expired one is removed too).
   */
  consume(stateHash: string, now: Date): Promise<PendingLogin | null>;
  /** Removes every pending login expired at `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}
