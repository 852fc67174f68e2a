/**
 * OpenID Connect relying party: builds authorization requests and completes the authorization code
 * flow. Implementations live in `adapters/identity/`; the SSO service (`server/services/sso.ts`)
 * holds the state between the two calls and turns identities into users.
 */

/** One configured identity provider (from `OIDC_PROVIDERS`). */
export interface OidcProviderConfig {
  id: string;
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE only); otherwise sent with client_secret_basic or _post as discovered. */
  clientSecret?: string;
  /** Space-separated scopes; always includes `openid`. */
  scopes: string;
  /** True when the issuer is plain http and that was allowed (loopback, or OIDC_ALLOW_INSECURE_ISSUERS). */
  allowInsecureRequests: boolean;
}

/** The secrets of one authorization request that the callback must be checked against. */
export interface AuthorizationChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface AuthorizationRequest extends AuthorizationChecks {
  /** Where to send the user agent: the provider's authorization endpoint with every parameter. */
  url: string;
}

/** Who the provider says signed in. `subject` is unique per issuer and stable; email may be absent. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

/**
 * Why an exchange failed, so the service can answer the right status:
 * - `rejected`: the provider refused (error in the callback, invalid_grant, invalid_client, …) → 401
 * - `invalid_response`: the response failed validation (state, nonce, issuer, ID token signature) → 401
 * - `unavailable`: the provider could not be reached or answered garbage → 503
 */
export type IdentityProviderErrorKind = 'rejected' | 'invalid_response' | 'unavailable';

export class IdentityProviderError extends Error {
  override name = 'IdentityProviderError';
  constructor(
    readonly kind: IdentityProviderErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface OidcClient {
  /**
   * A fresh authorization request (code flow, PKCE S256, random state and nonce) for the provider.
   * Discovery happens on first use and is cached per provider; an unreachable provider throws
   * IdentityProviderError('unavailable').
   */
  authorizationRequest(provider: OidcProviderConfig, redirectUri: string): Promise<AuthorizationRequest>;
  /**
   * Validates the authorization response at `callbackUrl` (the redirect URI plus the provider's
   * query parameters) against `expected`, redeems the code at the token endpoint, validates the
   * ID token, and returns the identity (claims from the ID token, completed from userinfo when the
   * ID token carries no email). Throws IdentityProviderError on any failure.
   */
  exchange(provider: OidcProviderConfig, callbackUrl: URL, expected: AuthorizationChecks): Promise<OidcIdentity>;
}
