import * as oidc from 'openid-client';
import {
  IdentityProviderError,
  type AuthorizationChecks,
  type AuthorizationRequest,
  type OidcClient,
  type OidcIdentity,
  type OidcProviderConfig,
} from '../../server/ports/identity-provider.js';

export interface OpenIdClientOptions {
  /** Seconds for each HTTP request to a provider (discovery, token, userinfo). Default 10. */
  timeoutSeconds?: number;
}

/**
 * The OIDC relying party over openid-client v6: discovery (cached per provider, retried after a
 * failure), authorization code flow with PKCE S256, state and nonce, ID token validation by the
 * library (signature, issuer, audience, expiry, nonce), and userinfo when the ID token has no email.
 */
export function createOpenIdClient(options: OpenIdClientOptions = {}): OidcClient {
  const timeout = options.timeoutSeconds ?? 10;
  const configurations = new Map<string, Promise<oidc.Configuration>>();

  function configurationOf(provider: OidcProviderConfig): Promise<oidc.Configuration> {
    // Keyed by everything that shapes the configuration, so two provider entries never share one.
    const key = JSON.stringify([
      provider.id,
      provider.issuer,
      provider.clientId,
      provider.clientSecret ?? null,
      provider.allowInsecureRequests,
    ]);
    let pending = configurations.get(key);
    if (!pending) {
      pending = discover(provider, timeout);
      configurations.set(key, pending);
      // A failed discovery is not cached: the next login tries again.
      pending.catch(() => configurations.delete(key));
    }
    return pending;
  }

  return {
    async authorizationRequest(provider, redirectUri): Promise<AuthorizationRequest> {
      const config = await configurationOf(provider).catch((err: unknown) => {
        throw toProviderError(err, provider);
      });
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const codeChallenge = await oidc.calculatePKCECodeChallenge(codeVerifier);
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: provider.scopes,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, state, nonce, codeVerifier };
    },

    async exchange(provider, callbackUrl, expected: AuthorizationChecks): Promise<OidcIdentity> {
      try {
        const config = await configurationOf(provider);
        const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          expectedState: expected.state,
          expectedNonce: expected.nonce,
          pkceCodeVerifier: expected.codeVerifier,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) throw new IdentityProviderError('invalid_response', `provider '${provider.id}' returned no ID token`);
        let email = typeof claims.email === 'string' ? claims.email : null;
        let emailVerified = isTrue(claims.email_verified);
        let name = typeof claims.name === 'string' ? claims.name : null;
        // Many providers put profile claims only in userinfo when an access token is issued.
        if ((email === null || name === null) && config.serverMetadata().userinfo_endpoint) {
          const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
          if (email === null && typeof info.email === 'string') {
            email = info.email;
            emailVerified = isTrue(info.email_verified);
          }
          if (name === null && typeof info.name === 'string') name = info.name;
        }
        return { issuer: claims.iss, subject: claims.sub, email: email?.trim().toLowerCase() || null, emailVerified, name };
      } catch (err) {
        throw toProviderError(err, provider);
      }
    },
  };
}

/**
 * Discovers the issuer, then builds the final configuration with the client authentication the
 * provider advertises (client_secret_basic is the OIDC default; client_secret_post when only that is
 * offered; none for a public client).
 */
async function discover(provider: OidcProviderConfig, timeout: number): Promise<oidc.Configuration> {
  const execute = provider.allowInsecureRequests ? [oidc.allowInsecureRequests] : [];
  const discovered = await oidc.discovery(new URL(provider.issuer), provider.clientId, undefined, oidc.None(), { execute, timeout });
  const server = discovered.serverMetadata();
  let auth: oidc.ClientAuth;
  if (provider.clientSecret === undefined) auth = oidc.None();
  else {
    const supported = server.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    auth =
      supported.includes('client_secret_basic') || !supported.includes('client_secret_post')
        ? oidc.ClientSecretBasic(provider.clientSecret)
        : oidc.ClientSecretPost(provider.clientSecret);
  }
  const config = new oidc.Configuration(server, provider.clientId, undefined, auth);
  config.timeout = timeout;
  if (provider.allowInsecureRequests) oidc.allowInsecureRequests(config);
  return config;
}

function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

const unavailableCodes = new Set([
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_RESPONSE_IS_NOT_JSON',
  'OAUTH_HTTP_REQUEST_FORBIDDEN',
  'OAUTH_REQUEST_PROTOCOL_FORBIDDEN',
]);

/** Classifies whatever openid-client (or fetch) threw. Messages name the provider, never a secret. */
function toProviderError(err: unknown, provider: OidcProviderConfig): IdentityProviderError {
  if (err instanceof IdentityProviderError) return err;
  const id = provider.id;
  if (err instanceof oidc.AuthorizationResponseError) {
    const detail = err.error_description ? `${err.error}: ${err.error_description}` : err.error;
    return new IdentityProviderError('rejected', `provider '${id}' refused the sign-in (${detail})`, { cause: err });
  }
  if (err instanceof oidc.ResponseBodyError) {
    if (err.status >= 500) return new IdentityProviderError('unavailable', `provider '${id}' failed (HTTP ${err.status})`, { cause: err });
    const detail = err.error_description ? `${err.error}: ${err.error_description}` : err.error;
    return new IdentityProviderError('rejected', `provider '${id}' rejected the code exchange (${detail})`, { cause: err });
  }
  if (err instanceof oidc.WWWAuthenticateChallengeError) {
    // e.g. invalid_client answered with 401 and a WWW-Authenticate challenge.
    const challenge = err.cause.find((c) => typeof c.parameters.error === 'string')?.parameters;
    const detail = challenge
      ? challenge.error_description
        ? `${challenge.error}: ${challenge.error_description}`
        : challenge.error
      : `HTTP ${err.status}`;
    return new IdentityProviderError('rejected', `provider '${id}' rejected the request (${detail})`, { cause: err });
  }
  if (err instanceof oidc.ClientError) {
    if (err.code && unavailableCodes.has(err.code)) {
      return new IdentityProviderError('unavailable', `provider '${id}' answered unexpectedly (${err.message})`, { cause: err });
    }
    return new IdentityProviderError('invalid_response', `provider '${id}' response failed validation (${err.message})`, { cause: err });
  }
  if (isNetworkError(err)) {
    return new IdentityProviderError('unavailable', `provider '${id}' is unreachable`, { cause: err });
  }
  if (err instanceof Error && /^OAUTH_|^ERR_JW/.test(String((err as { code?: unknown }).code ?? ''))) {
    return new IdentityProviderError('invalid_response', `provider '${id}' response failed validation (${err.message})`, { cause: err });
  }
  // Anything else is a bug on our side: let it surface as such.
  throw err;
}

function isNetworkError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return true;
  return err instanceof TypeError && (err.message === 'fetch failed' || (err.cause as { code?: string } | undefined)?.code !== undefined);
}
