import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenIdClient } from '../../adapters/identity/openid-client.js';
import { IdentityProviderError, type OidcProviderConfig } from '../../server/ports/identity-provider.js';
import { followToCallback, startTestIdentityProvider, type TestIdentityProvider } from '../support/oidc-provider.js';

/**
 * The openid-client adapter against a real OpenID Provider on loopback: discovery, PKCE, state,
 * nonce, ID token and userinfo — and each check failing when it should.
 */
const redirectUri = 'http://127.0.0.1:9/auth/callback';
let idp: TestIdentityProvider;
let confidential: OidcProviderConfig;
let publicClient: OidcProviderConfig;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  idp.accounts.set('alice-sub', { sub: 'alice-sub', email: 'Alice@Example.test', email_verified: true, name: 'Alice' });
  idp.accounts.set('nomail-sub', { sub: 'nomail-sub' });
  idp.configure([{ client_id: 'tm', client_secret: 'right-secret' }, { client_id: 'tm-public' }], redirectUri);
  confidential = {
    id: 'loop',
    issuer: idp.issuer,
    clientId: 'tm',
    clientSecret: 'right-secret',
    scopes: 'openid email profile',
    allowInsecureRequests: true,
  };
  publicClient = {
    id: 'loop-public',
    issuer: idp.issuer,
    clientId: 'tm-public',
    scopes: 'openid email profile',
    allowInsecureRequests: true,
  };
});
afterAll(async () => {
  await idp?.close();
});

async function authorize(provider: OidcProviderConfig, account: string) {
  const oidc = createOpenIdClient();
  const request = await oidc.authorizationRequest(provider, redirectUri);
  const callback = await followToCallback(request.url, redirectUri, { account });
  return { oidc, request, callback };
}

function kindOf(err: unknown): string {
  return err instanceof IdentityProviderError ? err.kind : `not an IdentityProviderError: ${String(err)}`;
}

describe('openid-client adapter', () => {
  it('builds a code + PKCE S256 request with state and nonce', async () => {
    const oidc = createOpenIdClient();
    const request = await oidc.authorizationRequest(confidential, redirectUri);
    const url = new URL(request.url);
    expect(url.origin).toBe(idp.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: 'tm',
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      state: request.state,
      nonce: request.nonce,
    });
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(request.codeVerifier).not.toBe(url.searchParams.get('code_challenge'));
    const again = await oidc.authorizationRequest(confidential, redirectUri);
    expect(again.state).not.toBe(request.state);
    expect(again.nonce).not.toBe(request.nonce);
  });

  it('exchanges the code for a validated identity, with email from userinfo, lower-cased', async () => {
    const { oidc, request, callback } = await authorize(confidential, 'alice-sub');
    expect(callback.searchParams.get('iss')).toBe(idp.issuer);
    const identity = await oidc.exchange(confidential, callback, request);
    expect(identity).toEqual({ issuer: idp.issuer, subject: 'alice-sub', email: 'alice@example.test', emailVerified: true, name: 'Alice' });
  });

  it('works for a public client (PKCE, no secret)', async () => {
    const { oidc, request, callback } = await authorize(publicClient, 'alice-sub');
    await expect(oidc.exchange(publicClient, callback, request)).resolves.toMatchObject({ subject: 'alice-sub' });
  });

  it('reports an account without email as such', async () => {
    const { oidc, request, callback } = await authorize(confidential, 'nomail-sub');
    await expect(oidc.exchange(confidential, callback, request)).resolves.toEqual({
      issuer: idp.issuer,
      subject: 'nomail-sub',
      email: null,
      emailVerified: false,
      name: null,
    });
  });

  it('refuses a nonce that does not match the ID token', async () => {
    const { oidc, request, callback } = await authorize(confidential, 'alice-sub');
    const err = await oidc.exchange(confidential, callback, { ...request, nonce: 'another-nonce' }).catch((e: unknown) => e);
    expect(kindOf(err)).toBe('invalid_response');
  });

  it('refuses a state that does not match the response', async () => {
    const { oidc, request, callback } = await authorize(confidential, 'alice-sub');
    const err = await oidc.exchange(confidential, callback, { ...request, state: 'another-state' }).catch((e: unknown) => e);
    expect(kindOf(err)).toBe('invalid_response');
  });

  it('is rejected by the provider with the wrong PKCE verifier', async () => {
    const { oidc, request, callback } = await authorize(confidential, 'alice-sub');
    const err = await oidc.exchange(confidential, callback, { ...request, codeVerifier: 'x'.repeat(43) }).catch((e: unknown) => e);
    expect(kindOf(err)).toBe('rejected');
    expect((err as Error).message).toContain('invalid_grant');
  });

  it('is rejected by the provider when a code is redeemed twice', async () => {
    const { oidc, request, callback } = await authorize(confidential, 'alice-sub');
    await oidc.exchange(confidential, callback, request);
    const err = await oidc.exchange(confidential, callback, request).catch((e: unknown) => e);
    expect(kindOf(err)).toBe('rejected');
  });

  it('is rejected with the wrong client secret', async () => {
    const wrong = { ...confidential, id: 'loop-wrong', clientSecret: 'wrong-secret' };
    const { oidc, request, callback } = await authorize(wrong, 'alice-sub');
    const err = await oidc.exchange(wrong, callback, request).catch((e: unknown) => e);
    expect(kindOf(err)).toBe('rejected');
    expect((err as Error).message).toContain('invalid_client');
    expect((err as Error).message).not.toContain('wrong-secret');
  });

  it('surfaces an error response from the provider as rejected', async () => {
    const oidc = createOpenIdClient();
    const request = await oidc.authorizationRequest(confidential, redirectUri);
    const callback = await followToCallback(request.url, redirectUri, { deny: true });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const err = await oidc.exchange(confidential, callback, request).catch((e: unknown) => e);
    expect(kindOf(err)).toBe('rejected');
    expect((err as Error).message).toContain('access_denied');
  });

  it('reports an unreachable issuer as unavailable, and retries discovery later', async () => {
    const oidc = createOpenIdClient({ timeoutSeconds: 2 });
    const down = { ...confidential, id: 'down', issuer: 'http://127.0.0.1:9' };
    const err = await oidc.authorizationRequest(down, redirectUri).catch((e: unknown) => e);
    expect(kindOf(err)).toBe('unavailable');
    const err2 = await oidc.authorizationRequest(down, redirectUri).catch((e: unknown) => e);
    expect(kindOf(err2)).toBe('unavailable');
  });

  it('refuses an http issuer unless insecure requests were allowed', async () => {
    const oidc = createOpenIdClient();
    const err = await oidc
      .authorizationRequest({ ...confidential, id: 'strict', allowInsecureRequests: false }, redirectUri)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityProviderError);
  });
});
