import { createHash } from 'node:crypto';
import { AppError, unauthenticated, validation } from '../errors.js';
import { IdentityProviderError, type OidcClient, type OidcIdentity, type OidcProviderConfig } from '../ports/identity-provider.js';
import type { SsoStateStore } from '../ports/sso-state.js';
import { storableText } from '../schemas/safe-text.js';
import type { AddressBudget } from './address-budget.js';
import type { SessionTokens } from './auth.js';
import { systemClock, type Clock } from './clock.js';

/** The token response (docs/decisions.md#sign-in-and-tokens), as the auth service issues it. */

export interface SsoRequestMeta {
  ip: string | null;
  userAgent: string | null;
}

interface SsoUser {
  id: string;
  email: string;
}

/** What the SSO flow needs from the users, tenants, auth and audit services (structural: no import cycle). */
export interface SsoServiceDeps {
  providers: readonly OidcProviderConfig[];
  oidc: OidcClient;
  states: SsoStateStore;
  users: {
    findByIdentity(provider: string, subject: string): Promise<SsoUser | null>;
    findByEmail(email: string): Promise<SsoUser | null>;
    linkIdentity(link: { provider: string; subject: string; userId: string; email?: string | null }): Promise<boolean>;
  };
  tenants: { primary(userId: string): Promise<{ tenant: { id: string } } | null> };
  auth: {
    provisionUser(
      input: { email: string; name?: string | null; passwordHash: string | null },
      meta?: SsoRequestMeta,
    ): Promise<{ user: SsoUser; tenant: { id: string } }>;
    /** Starts the session and records `auth.login` (details.method = 'sso'). */
    issueSession(userId: string, tenantId: string, origin: SsoRequestMeta & { method: 'sso' }): Promise<SessionTokens>;
  };
  audit: {
    recordUnscoped(
      type: 'auth.login_failed',
      facts: { ip?: string | null; userAgent?: string | null; details?: Record<string, unknown> },
    ): void;
    record(input: {
      tenantId: string;
      type: 'user.identity_link';
      actor?: { userId?: string };
      ip?: string | null;
      userAgent?: string | null;
      target?: { type: string; id: string } | null;
      details?: Record<string, unknown> | null;
    }): Promise<unknown>;
  };
  /** PUBLIC_URL: the redirect URI is `${publicUrl}/auth/callback`; without it, the request's origin. */
  publicUrl?: string;
  /** Milliseconds since the epoch. */
  clock?: Clock;
  /** How long a started login may be completed. Default 600 s. */
  stateTtlSeconds?: number;
  /** Sign-in starts per client address (SSO_START_RATE_LIMIT); none when absent. */
  startBudget?: AddressBudget;
}

/** The query of `GET /auth/callback`: the provider's authorization response. */
export interface SsoCallbackInput {
  state: string;
  code?: string;
  iss?: string;
  error?: string;
  error_description?: string;
}

export interface SsoService {
  /** The configured providers, for a sign-in page. */
  listProviders(): { id: string; issuer: string }[];
  /**
   * Starts a sign-in at a provider: stores the pending login (hashed state, nonce, PKCE verifier,
   * redirect URI; 10 minutes) and returns where to send the user agent. An unknown provider is a
   * validation error (400, field `provider`); an unreachable one 503; an address past its budget of
   * starts 429.
   */
  startLogin(
    providerId: string,
    requestOrigin: string | null,
    meta?: SsoRequestMeta,
    callbackPath?: string,
  ): Promise<{ authorization_url: string; state: string }>;
  /**
   * Completes a sign-in from the provider's redirect. The state is redeemed once (unknown, expired
   * or replayed: 401); the code is exchanged and the ID token validated (any failure: 401; provider
   * unreachable: 503). The user is the one linked to (provider, subject); else the user with the
   * provider-verified email, to whom the subject is then linked; else a new user with a default
   * tenant. Returns the token response of a new session in the user's primary tenant.
   */
  completeLogin(input: SsoCallbackInput, meta: SsoRequestMeta): Promise<SessionTokens>;
  /**
   * `completeLogin`'s checks and account resolution without a session, for a door that starts its own
   * (the portal's cookie). `callbackPath` is the door's callback: a sign-in started for another door's
   * callback is refused like an unknown state (401).
   */
  resolveSignIn(input: SsoCallbackInput, meta: SsoRequestMeta, callbackPath: string): Promise<{ userId: string; tenantId: string }>;
}

export const SSO_CALLBACK_PATH = '/auth/callback';
/** The web portal's callback: the provider must list it as a redirect URI too (docs/sso.md). */
export const PORTAL_SSO_CALLBACK_PATH = '/api/portal/sso/callback';

export function hashState(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/** The redirect URI for a public base URL (PUBLIC_URL, which may carry a path prefix) or a request origin. */
export function redirectUriFor(base: string, callbackPath = SSO_CALLBACK_PATH): string {
  return `${base.replace(/\/+$/, '')}${callbackPath}`;
}

/** Provider-supplied text ends up in error messages: keep it short and printable. */
function clip(text: string, max = 200): string {
  const clean = text.replace(/[^\x20-\x7e]/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

export function createSsoService(deps: SsoServiceDeps): SsoService {
  const { oidc, states, users, tenants, auth, audit } = deps;
  const now = deps.clock ?? systemClock;
  const ttlMs = (deps.stateTtlSeconds ?? 600) * 1000;
  const providers = new Map(deps.providers.map((p) => [p.id, p]));

  function failed(meta: SsoRequestMeta, details: Record<string, unknown>, error: AppError): AppError {
    audit.recordUnscoped('auth.login_failed', { ...meta, details: { method: 'sso', ...details } });
    return error;
  }

  function fromProviderError(err: unknown): unknown {
    if (!(err instanceof IdentityProviderError)) return err;
    if (err.kind === 'unavailable') return new AppError('DEPENDENCY_UNAVAILABLE', err.message);
    return unauthenticated(`single sign-on failed: ${err.message}`);
  }

  /** The account for a verified identity: linked, else matched by verified email and linked, else new. */
  async function resolveUser(
    provider: OidcProviderConfig,
    identity: OidcIdentity,
    meta: SsoRequestMeta,
  ): Promise<{ userId: string; tenantId: string | null }> {
    const linked = await users.findByIdentity(provider.id, identity.subject);
    if (linked) return { userId: linked.id, tenantId: null };
    const fail = (reason: string, message: string, code: 'UNAUTHENTICATED' | 'CONFLICT' = 'UNAUTHENTICATED') =>
      failed(meta, { provider: provider.id, reason }, new AppError(code, message));
    if (!identity.email) throw fail('no_email', `single sign-on failed: provider '${provider.id}' did not share an email address`);
    const existing = await users.findByEmail(identity.email);
    if (!identity.emailVerified) {
      // Linking or claiming an address the provider has not verified would let anyone who can set
      // that address at the provider take over, or squat, the account.
      if (existing) {
        throw fail(
          'email_unverified',
          `an account with this email already exists and provider '${provider.id}' has not verified the address`,
          'CONFLICT',
        );
      }
      throw fail('email_unverified', `single sign-on failed: provider '${provider.id}' has not verified the email address`);
    }
    let userId: string;
    let tenantId: string | null = null;
    if (existing) {
      userId = existing.id;
    } else {
      try {
        // The provider's display name is stored like one typed at sign-up: visible text, at most 200 characters.
        const name = identity.name === null ? null : storableText(identity.name, 200).trim() || null;
        const created = await auth.provisionUser({ email: identity.email, name, passwordHash: null }, meta);
        userId = created.user.id;
        tenantId = created.tenant.id;
      } catch (err) {
        // A concurrent first sign-in of the same person created the user a moment ago.
        const raced = err instanceof AppError && err.code === 'CONFLICT' ? await users.findByEmail(identity.email) : null;
        if (!raced) throw err;
        userId = raced.id;
      }
    }
    const created = await users.linkIdentity({ provider: provider.id, subject: identity.subject, userId, email: identity.email });
    if (!created) {
      // Linked concurrently: use whoever holds the link now.
      const holder = await users.findByIdentity(provider.id, identity.subject);
      if (!holder) throw new AppError('CONFLICT', 'the identity could not be linked; try again');
      return { userId: holder.id, tenantId: holder.id === userId ? tenantId : null };
    }
    if (existing) {
      // An existing account gained a way to sign in: its owners should see that in their audit log.
      const primary = await deps.tenants.primary(userId);
      if (primary) {
        await audit.record({
          tenantId: primary.tenant.id,
          type: 'user.identity_link',
          actor: { userId },
          ip: meta.ip ?? null,
          userAgent: meta.userAgent ?? null,
          target: { type: 'user', id: userId },
          details: { provider: provider.id },
        });
      }
    }
    return { userId, tenantId };
  }

  const service: SsoService = {
    listProviders() {
      return deps.providers.map((p) => ({ id: p.id, issuer: p.issuer }));
    },

    async startLogin(providerId, requestOrigin, meta, callbackPath = SSO_CALLBACK_PATH) {
      await deps.startBudget?.consume(meta?.ip ?? 'unknown');
      const provider = providers.get(providerId);
      if (!provider) {
        const known = [...providers.keys()];
        throw validation(
          'provider',
          known.length > 0 ? `unknown provider; configured: ${known.join(', ')}` : 'unknown provider; no SSO providers are configured',
        );
      }
      const base = deps.publicUrl ?? requestOrigin;
      if (!base) throw new AppError('DEPENDENCY_UNAVAILABLE', 'the callback URL is unknown: set PUBLIC_URL');
      const redirectUri = redirectUriFor(base, callbackPath);
      const request = await oidc.authorizationRequest(provider, redirectUri).catch((err: unknown) => {
        throw fromProviderError(err);
      });
      const at = now();
      await states.purgeExpired(new Date(at));
      await states.save({
        stateHash: hashState(request.state),
        providerId: provider.id,
        nonce: request.nonce,
        codeVerifier: request.codeVerifier,
        redirectUri,
        createdAt: new Date(at),
        expiresAt: new Date(at + ttlMs),
      });
      return { authorization_url: request.url, state: request.state };
    },

    async completeLogin(input, meta) {
      const { userId, tenantId } = await service.resolveSignIn(input, meta, SSO_CALLBACK_PATH);
      return auth.issueSession(userId, tenantId, { ...meta, method: 'sso' });
    },

    async resolveSignIn(input, meta, callbackPath) {
      const pending = await states.consume(hashState(input.state), new Date(now()));
      // Started for another door's callback: its code was issued for that redirect URI, not this one.
      if (!pending || !new URL(pending.redirectUri).pathname.endsWith(callbackPath)) {
        throw failed(
          meta,
          { reason: 'bad_state' },
          unauthenticated('single sign-on failed: the sign-in state is unknown, expired or already used'),
        );
      }
      const provider = providers.get(pending.providerId);
      if (!provider)
        throw failed(meta, { reason: 'provider_removed' }, unauthenticated('single sign-on failed: the provider is no longer configured'));
      if (input.error) {
        const detail = input.error_description ? `${clip(input.error, 64)}: ${clip(input.error_description)}` : clip(input.error, 64);
        throw failed(
          meta,
          { provider: provider.id, reason: 'provider_error', error: clip(input.error, 64) },
          unauthenticated(`provider '${provider.id}' refused the sign-in (${detail})`),
        );
      }
      if (!input.code) throw validation('code', 'required when the provider sends no error');

      const callbackUrl = new URL(pending.redirectUri);
      callbackUrl.searchParams.set('code', input.code);
      callbackUrl.searchParams.set('state', input.state);
      if (input.iss !== undefined) callbackUrl.searchParams.set('iss', input.iss);
      let identity: OidcIdentity;
      try {
        identity = await oidc.exchange(provider, callbackUrl, {
          state: input.state,
          nonce: pending.nonce,
          codeVerifier: pending.codeVerifier,
        });
      } catch (err) {
        const mapped = fromProviderError(err);
        if (mapped instanceof AppError && mapped.code === 'UNAUTHENTICATED') {
          throw failed(meta, { provider: provider.id, reason: (err as IdentityProviderError).kind }, mapped);
        }
        throw mapped;
      }

      const { userId, tenantId: provisionedTenant } = await resolveUser(provider, identity, meta);
      const tenantId = provisionedTenant ?? (await tenants.primary(userId))?.tenant.id;
      if (!tenantId) throw new AppError('FORBIDDEN', 'this account is not a member of any tenant');
      return { userId, tenantId };
    },
  };
  return service;
}
