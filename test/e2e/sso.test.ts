import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createTenantMemoryClient } from '../../client/index.js';
import { hashState } from '../../server/services/sso.js';
import { followToCallback, startTestIdentityProvider, type TestIdentityProvider } from '../support/oidc-provider.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * OIDC single sign-on end to end: a real OpenID Provider (oidc-provider) on loopback, our real
 * server on loopback, and every step over HTTP — sign-in start, the provider's redirects and
 * interactions, our callback, and the issued access token on a bearer route.
 */
let idp: TestIdentityProvider;
let server: TestServer;
let callbackBase: string;

beforeAll(async () => {
  // The provider listens first so its issuer URL can go into our configuration; it is given our
  // callback URL (known once our server listens) before anything talks to it.
  idp = await startTestIdentityProvider();
  for (const account of [
    { sub: 'alice-sub', email: 'alice@example.test', email_verified: true, name: 'Alice' },
    { sub: 'bob-sub', email: 'Bob@Example.test', email_verified: true, name: 'Bob' },
    { sub: 'carol-sub', email: 'carol@example.test', email_verified: false },
    { sub: 'dave-sub', email: 'dave@example.test', email_verified: false },
    { sub: 'nomail-sub' },
    // A provider's display name is text we did not validate: a NUL and a C1 control in it, and 300 characters.
    { sub: 'erin-sub', email: 'erin@example.test', email_verified: true, name: `Erin\u0000 Doe\u0085 ${'x'.repeat(300)}` },
  ]) {
    idp.accounts.set(account.sub, account);
  }
  server = await startTestServer({
    OIDC_PROVIDERS: JSON.stringify([
      { id: 'loop', issuer: idp.issuer, client_id: 'tenant-memory', client_secret: 'right-secret-0123456789' },
      { id: 'loop-bad-secret', issuer: idp.issuer, client_id: 'tenant-memory', client_secret: 'wrong-secret-0123456789' },
    ]),
  });
  callbackBase = `${server.url}/auth/callback`;
  idp.configure([{ client_id: 'tenant-memory', client_secret: 'right-secret-0123456789' }], callbackBase);
});

afterAll(async () => {
  await server?.close();
  await idp?.close();
});

/** Starts a sign-in at our server and walks the provider's side; returns the callback URL it sent us to. */
async function signInAtProvider(account: string, provider = 'loop') {
  const started = await http(server.url, 'POST', '/auth/sso/login', { body: { provider } });
  expect(started.status).toBe(200);
  const callback = await followToCallback(started.body.authorization_url, callbackBase, { account });
  return { started: started.body as { authorization_url: string; state: string }, callback };
}

async function callback(url: URL) {
  return http(server.url, 'GET', url.pathname + url.search);
}

async function ssoLogin(account: string) {
  const { callback: url } = await signInAtProvider(account);
  const res = await callback(url);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    access_token: string;
    refresh_token: string;
    token_type: string;
    expires_in: number;
    user_id: string;
    tenant_id: string;
  };
}

function expectErrorBody(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ code, message: expect.any(String), request_id: res.headers.get('x-request-id') });
}

describe('SSO providers', () => {
  it('lists the configured providers without secrets', async () => {
    const res = await http(server.url, 'GET', '/auth/sso/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      providers: [
        { id: 'loop', issuer: idp.issuer },
        { id: 'loop-bad-secret', issuer: idp.issuer },
      ],
    });
    expect(res.text).not.toContain('secret-0123456789');
  });

  it('documents the SSO routes in the OpenAPI document', async () => {
    const doc = (await http(server.url, 'GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/auth/sso/login'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/auth/sso/providers'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/auth/callback'])).toEqual(['get']);
    const params = (doc.paths['/auth/callback'].get.parameters as { name: string; required?: boolean }[]).map((p) => [
      p.name,
      p.required ?? false,
    ]);
    expect(params).toEqual(
      expect.arrayContaining([
        ['state', true],
        ['code', false],
        ['iss', false],
        ['error', false],
        ['error_description', false],
      ]),
    );
  });

  it('answers an unknown provider with 400 naming the field', async () => {
    const res = await http(server.url, 'POST', '/auth/sso/login', { body: { provider: 'nope' } });
    expectErrorBody(res, 400, 'VALIDATION_FAILED');
    expect(res.body.fields).toEqual([{ field: 'provider', message: expect.stringContaining('loop') }]);
  });
});

describe('SSO sign-in', () => {
  it('starts with an authorization URL for code + PKCE S256 + state + nonce, redirecting to our callback', async () => {
    const res = await http(server.url, 'POST', '/auth/sso/login', { body: { provider: 'loop' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const url = new URL(res.body.authorization_url);
    expect(url.origin).toBe(idp.issuer);
    const params = Object.fromEntries(url.searchParams);
    expect(params).toMatchObject({
      client_id: 'tenant-memory',
      response_type: 'code',
      redirect_uri: callbackBase,
      code_challenge_method: 'S256',
      state: res.body.state,
      scope: 'openid email profile',
    });
    expect(params.nonce).toEqual(expect.any(String));
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('signs a new user in through the provider, provisions a tenant, and the token works on a bearer route', async () => {
    const tokens = await ssoLogin('alice-sub');
    expect(tokens).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      user_id: expect.any(String),
      tenant_id: expect.any(String),
    });
    const tenant = await http(server.url, 'GET', '/auth/gettenant', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(tenant.status).toBe(200);
    expect(tenant.body).toMatchObject({ tenant_id: tokens.tenant_id, is_default: true });

    const user = await server.services.users.findById(tokens.user_id);
    expect(user).toMatchObject({ email: 'alice@example.test', name: 'Alice', passwordHash: null });
    const { events } = await server.services.audit.list(tokens.tenant_id, { limit: 50, offset: 0 });
    expect(events.find((e) => e.type === 'auth.login')).toMatchObject({ actor: { userId: tokens.user_id }, details: { method: 'sso' } });

    // The refresh token of an SSO session works like any other.
    const refreshed = await http(server.url, 'POST', '/auth/refresh', { headers: { authorization: `Bearer ${tokens.refresh_token}` } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.user_id).toBe(tokens.user_id);
  });

  it('signs the same subject in as the same user the second time', async () => {
    const first = await ssoLogin('alice-sub');
    const second = await ssoLogin('alice-sub');
    expect(second.user_id).toBe(first.user_id);
    expect(second.tenant_id).toBe(first.tenant_id);
    expect(second.access_token).not.toBe(first.access_token);
  });

  it('links an existing password account with the same verified email', async () => {
    const signup = await http(server.url, 'POST', '/auth/signup', {
      body: { email: 'bob@example.test', password: 'correct horse battery staple' },
    });
    expect(signup.status).toBe(201);
    const sso = await ssoLogin('bob-sub');
    expect(sso.user_id).toBe(signup.body.user_id);
    expect(sso.tenant_id).toBe(signup.body.tenant_id);
    expect(await server.services.users.listIdentities(signup.body.user_id)).toEqual([
      expect.objectContaining({ provider: 'loop', subject: 'bob-sub', userId: signup.body.user_id }),
    ]);
    // The password still works, and so does SSO again (now through the link).
    const login = await http(server.url, 'POST', '/auth/login', {
      body: { email: 'bob@example.test', password: 'correct horse battery staple' },
    });
    expect(login.body.user_id).toBe(signup.body.user_id);
    expect((await ssoLogin('bob-sub')).user_id).toBe(signup.body.user_id);
    // Linking is audited once, in the account's tenant (the second SSO sign-in went through the link).
    const audit = await server.services.audit.list(signup.body.tenant_id, { limit: 100, offset: 0 });
    const links = audit.events.filter((e) => e.type === 'user.identity_link');
    expect(links).toHaveLength(1);
    expect(links[0]!.details).toEqual({ provider: 'loop' });
  });

  it('refuses to link an account whose email the provider did not verify (409), and to provision one (401)', async () => {
    const signup = await http(server.url, 'POST', '/auth/signup', {
      body: { email: 'carol@example.test', password: 'correct horse battery staple' },
    });
    expect(signup.status).toBe(201);
    const carol = await signInAtProvider('carol-sub');
    expectErrorBody(await callback(carol.callback), 409, 'CONFLICT');
    expect(await server.services.users.listIdentities(signup.body.user_id)).toEqual([]);

    const dave = await signInAtProvider('dave-sub');
    expectErrorBody(await callback(dave.callback), 401, 'UNAUTHENTICATED');
    expect(await server.services.users.findByEmail('dave@example.test')).toBeNull();

    const nomail = await signInAtProvider('nomail-sub');
    const res = await callback(nomail.callback);
    expectErrorBody(res, 401, 'UNAUTHENTICATED');
    expect(res.body.message).toContain('email');
  });

  it('answers 302 to the provider with ?redirect=1, and the flow completes from there', async () => {
    const res = await fetch(`${server.url}/auth/sso/login?redirect=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'loop' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${idp.issuer}/`)).toBe(true);
    const body = (await res.json()) as { authorization_url: string };
    expect(body.authorization_url).toBe(location);
    const url = await followToCallback(location, callbackBase, { account: 'alice-sub' });
    expect((await callback(url)).status).toBe(200);
  });

  it('serves the typed client too', async () => {
    const client = createTenantMemoryClient({ url: server.url });
    const providers = await client.sso.providers.query({});
    expect(providers.providers.map((p) => p.id)).toEqual(['loop', 'loop-bad-secret']);
    const started = await client.sso.login.mutate({ provider: 'loop' });
    const url = await followToCallback(started.authorization_url, callbackBase, { account: 'alice-sub' });
    const tokens = await client.sso.callback.query({
      state: url.searchParams.get('state')!,
      code: url.searchParams.get('code')!,
      iss: url.searchParams.get('iss')!,
    });
    expect(tokens.token_type).toBe('Bearer');
  });
});

describe('SSO callback rejections', () => {
  it('rejects a tampered state without consuming the real one', async () => {
    const { callback: url } = await signInAtProvider('alice-sub');
    const tampered = new URL(url);
    tampered.searchParams.set('state', `${url.searchParams.get('state')}x`);
    expectErrorBody(await callback(tampered), 401, 'UNAUTHENTICATED');
    expect((await callback(url)).status).toBe(200);
  });

  it('rejects a replayed callback', async () => {
    const { callback: url } = await signInAtProvider('alice-sub');
    expect((await callback(url)).status).toBe(200);
    const replay = await callback(url);
    expectErrorBody(replay, 401, 'UNAUTHENTICATED');
    expect(replay.body.message).toMatch(/state/);
  });

  it("rejects one sign-in's code presented with another sign-in's state (PKCE binds the code)", async () => {
    const a = await signInAtProvider('alice-sub');
    const b = await signInAtProvider('alice-sub');
    const mixed = new URL(b.callback);
    mixed.searchParams.set('code', a.callback.searchParams.get('code')!);
    const res = await callback(mixed);
    expectErrorBody(res, 401, 'UNAUTHENTICATED');
    expect(res.body.message).toContain('invalid_grant');
  });

  it('rejects an expired sign-in state', async () => {
    const { started, callback: url } = await signInAtProvider('alice-sub');
    // Age the pending login past its 10 minutes, through a second connection to the server's database file.
    const db = openEmbeddedDatabase(server.dataDir);
    try {
      const changed = db
        .prepare('UPDATE sso_states SET expires_at = ? WHERE state_hash = ?')
        .run([Date.now() - 1000, hashState(started.state)]).changes;
      expect(changed).toBe(1);
    } finally {
      db.close();
    }
    const res = await callback(url);
    expectErrorBody(res, 401, 'UNAUTHENTICATED');
    expect(res.body.message).toContain('expired');
  });

  it('answers the provider refusing the sign-in with 401 and its error', async () => {
    const started = await http(server.url, 'POST', '/auth/sso/login', { body: { provider: 'loop' } });
    const url = await followToCallback(started.body.authorization_url, callbackBase, { deny: true });
    expect(url.searchParams.get('error')).toBe('access_denied');
    const res = await callback(url);
    expectErrorBody(res, 401, 'UNAUTHENTICATED');
    expect(res.body.message).toContain('access_denied');
    expect(res.body.message).toContain('the user declined');
  });

  it('answers a wrong client secret with 401, not 500, and never shows the secret', async () => {
    const { callback: url } = await signInAtProvider('alice-sub', 'loop-bad-secret');
    const res = await callback(url);
    expectErrorBody(res, 401, 'UNAUTHENTICATED');
    expect(res.body.message).toContain('invalid_client');
    expect(res.text).not.toContain('secret-0123456789');
  });

  it('requires a state, and a code when no error is sent', async () => {
    expectErrorBody(await http(server.url, 'GET', '/auth/callback?code=abc'), 400, 'VALIDATION_FAILED');
    const started = await http(server.url, 'POST', '/auth/sso/login', { body: { provider: 'loop' } });
    const res = await http(server.url, 'GET', `/auth/callback?state=${encodeURIComponent(started.body.state)}`);
    expectErrorBody(res, 400, 'VALIDATION_FAILED');
    expect(res.body.fields).toEqual([{ field: 'code', message: expect.any(String) }]);
  });

  it('keeps codes, states and tokens out of the logs', async () => {
    const { started, callback: url } = await signInAtProvider('alice-sub');
    const tokens = (await callback(url)).body;
    const logs = server.logs.join('\n');
    expect(logs).toContain('/auth/callback');
    for (const secret of [started.state, url.searchParams.get('code')!, tokens.access_token, tokens.refresh_token]) {
      expect(logs).not.toContain(secret);
    }
  });
});

describe('SSO start budget', () => {
  it('allows SSO_START_RATE_LIMIT sign-in starts per address per 10 minutes, then answers 429 with Retry-After', async () => {
    // Behind a trusted loopback proxy, so X-Forwarded-For gives each request its client address.
    const limited = await startTestServer({
      SSO_START_RATE_LIMIT: '2',
      TRUST_PROXY: 'loopback',
      OIDC_PROVIDERS: JSON.stringify([
        { id: 'loop', issuer: idp.issuer, client_id: 'tenant-memory', client_secret: 'right-secret-0123456789' },
      ]),
    });
    try {
      const start = (address: string) =>
        http(limited.url, 'POST', '/auth/sso/login', { body: { provider: 'loop' }, headers: { 'x-forwarded-for': address } });
      expect((await start('203.0.113.7')).status).toBe(200);
      expect((await start('203.0.113.7')).status).toBe(200);
      const blocked = await start('203.0.113.7');
      expect(blocked.status).toBe(429);
      expect(blocked.body.code).toBe('RATE_LIMITED');
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect((await start('198.51.100.9')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('of 20 concurrent sign-in starts from one address exactly SSO_START_RATE_LIMIT store a pending login; the rest get 429', async () => {
    const limited = await startTestServer({
      SSO_START_RATE_LIMIT: '5',
      TRUST_PROXY: 'loopback',
      OIDC_PROVIDERS: JSON.stringify([
        { id: 'loop', issuer: idp.issuer, client_id: 'tenant-memory', client_secret: 'right-secret-0123456789' },
      ]),
    });
    try {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          http(limited.url, 'POST', '/auth/sso/login', { body: { provider: 'loop' }, headers: { 'x-forwarded-for': '203.0.113.8' } }),
        ),
      );
      const started = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 429);
      expect(started).toHaveLength(5);
      expect(refused).toHaveLength(15);
      for (const r of refused) {
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.body).toEqual({ code: 'RATE_LIMITED', message: expect.any(String), request_id: expect.any(String) });
      }
      // Only the allowed starts stored a pending login.
      const db = openEmbeddedDatabase(limited.dataDir);
      try {
        expect(db.prepare('SELECT COUNT(*) AS n FROM sso_states').get()).toMatchObject({ n: 5 });
      } finally {
        db.close();
      }
    } finally {
      await limited.close();
    }
  });
});

describe('a display name from the provider', () => {
  it('is stored as visible text of at most 200 characters (a NUL would cut it short on read)', async () => {
    const tokens = await ssoLogin('erin-sub');
    const user = await server.services.users.findById(tokens.user_id);
    expect(user?.name).toBe(`Erin Doe ${'x'.repeat(300)}`.slice(0, 200));
  });
});
