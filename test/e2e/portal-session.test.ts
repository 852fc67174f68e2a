import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, logIn, signUp, type SignedUpUser } from '../support/auth.js';
import { portalCall, portalLogin } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The portal's cookie session: sign-in, the cookie's flags, CSRF, the same-origin checks, the tenant
 * and user headers, sign-out, expiry, and that the cookie and the bearer/API-key credentials never
 * open each other's doors.
 */
let server: TestServer;
let nowMs = Date.parse('2026-11-26T10:00:00.000Z');
let user: SignedUpUser;
let stranger: SignedUpUser;

beforeAll(async () => {
  server = await startTestServer({ PORTAL_SESSION_TTL_SECONDS: '3600' }, { clock: () => nowMs });
  user = await signUp(server.url);
  stranger = await signUp(server.url);
});
afterAll(async () => {
  await server?.close();
});

describe('sign-in', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie on Path=/ and answers with the CSRF token and the tenants', async () => {
    const res = await http(server.url, 'POST', '/api/portal/login', { body: { email: user.email, password: user.password } });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^tm_portal=tmc_[a-z2-7]{16}\.[a-z2-7]{39}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain('Max-Age=3600');
    expect(cookie).not.toContain('Secure'); // plain HTTP: a Secure cookie would never come back
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ user_id: user.userId, email: user.email, tenant_id: user.tenantId, method: 'password' });
    expect(res.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.tenants).toEqual([
      expect.objectContaining({ tenant_id: user.tenantId, role: 'owner', status: 'active', plan: 'free' }),
    ]);
    expect(JSON.stringify(res.body)).not.toContain(cookie.split(';')[0]!.split('=')[1]); // the cookie value is never in a body
  });

  it('answers one 401 for a wrong password or an unknown email, without a cookie', async () => {
    for (const body of [
      { email: user.email, password: 'wrong-password' },
      { email: `nobody-${user.userId}@example.test`, password: 'whatever1' },
    ]) {
      const res = await http(server.url, 'POST', '/api/portal/login', { body });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED', message: 'invalid email or password' });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses a sign-in another site makes the browser send (login CSRF)', async () => {
    const body = { email: user.email, password: user.password };
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of foreign) {
      const res = await http(server.url, 'POST', '/api/portal/login', { body, headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.code).toBe('CSRF_FAILED');
    }
    const sameOrigin = await http(server.url, 'POST', '/api/portal/login', {
      body,
      headers: { origin: server.url, 'sec-fetch-site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(200);
  });

  it('over HTTPS the cookie is __Host- prefixed and Secure, and only that name is read', async () => {
    const proxied = await startTestServer({ TRUST_PROXY: 'loopback' });
    try {
      const owner = await signUp(proxied.url);
      const https = { 'x-forwarded-proto': 'https' };
      const browser = await portalLogin(proxied.url, owner.email, owner.password, https);
      expect(browser.cookie).toMatch(/^__Host-tm_portal=tmc_/);
      const raw = (
        await http(proxied.url, 'POST', '/api/portal/login', { body: { email: owner.email, password: owner.password }, headers: https })
      ).headers.get('set-cookie')!;
      expect(raw).toContain('Secure');
      expect(raw).toContain('Path=/');
      expect(raw).not.toContain('Domain');
      expect((await portalCall(proxied.url, browser, 'GET', '/api/portal/session', { headers: https })).status).toBe(200);
      // The same value under the plain name (which a sibling site could plant) is not a session over HTTPS.
      const planted = { ...browser, cookie: browser.cookie.replace('__Host-tm_portal', 'tm_portal') };
      expect((await portalCall(proxied.url, planted, 'GET', '/api/portal/session', { headers: https })).status).toBe(401);
    } finally {
      await proxied.close();
    }
  });

  it('works through /trpc as well: the typed client gets the cookie', async () => {
    const res = await http(server.url, 'POST', '/trpc/portal.login', { body: { json: { email: user.email, password: user.password } } });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/^tm_portal=tmc_.*HttpOnly/);
    expect(res.body.result.data.json.user_id).toBe(user.userId);
  });
});

describe('the session', () => {
  it('GET session answers the same body as sign-in, with the same CSRF token', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const res = await portalCall(server.url, browser, 'GET', '/api/portal/session');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(browser.session);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('each sign-in is its own session with its own CSRF token', async () => {
    const a = await portalLogin(server.url, user.email, user.password);
    const b = await portalLogin(server.url, user.email, user.password);
    expect(a.cookie).not.toBe(b.cookie);
    expect(a.csrf).not.toBe(b.csrf);
    const crossed = await portalCall(server.url, a, 'POST', '/api/portal/logout', { headers: { 'x-csrf-token': b.csrf } });
    expect(crossed.status).toBe(403);
    expect(crossed.body.code).toBe('CSRF_FAILED');
  });

  it('answers 401 without a cookie, with a forged or tampered one', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const tampered = browser.cookie.slice(0, -1) + (browser.cookie.endsWith('a') ? 'b' : 'a');
    for (const cookie of [
      undefined,
      'tm_portal=',
      'tm_portal=tmc_aaaaaaaaaaaaaaaa.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      tampered,
      'other=1',
    ]) {
      const res = await http(server.url, 'GET', '/api/portal/session', { headers: cookie ? { cookie } : {} });
      expect(res.status, String(cookie)).toBe(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    }
  });

  it('ends at sign-out: the cookie is cleared and no longer works; sign-out needs the CSRF token', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const noToken = await portalCall(server.url, browser, 'POST', '/api/portal/logout', { headers: { 'x-csrf-token': '' } });
    expect(noToken.status).toBe(403);
    expect(noToken.body.code).toBe('CSRF_FAILED');
    const out = await portalCall(server.url, browser, 'POST', '/api/portal/logout');
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signed_out: true });
    expect(out.headers.get('set-cookie')).toMatch(
      /^tm_portal=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/,
    );
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/session')).status).toBe(401);
    // A fresh token: another test moves the clock past the sign-up's access token.
    const { access_token } = await logIn(server.url, user.email, user.password);
    const audit = await http(server.url, 'GET', '/auth/audit?limit=20', { headers: bearer(access_token) });
    const revoke = audit.body.events.find((e: any) => e.type === 'auth.revoke' && e.details?.via === 'portal_sign_out');
    expect(revoke).toMatchObject({ actor: { user_id: user.userId } });
  });

  it('expires after PORTAL_SESSION_TTL_SECONDS (it does not slide)', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    nowMs += 3599_000;
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/session')).status).toBe(200);
    nowMs += 1_000;
    const res = await portalCall(server.url, browser, 'GET', '/api/portal/session');
    expect(res.status).toBe(401);
    expect(res.body.message).toContain('sign in again');
  });

  it('is refused when another site makes the browser call it', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const foreign: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { origin: 'http://evil.example' }];
    for (const headers of foreign) {
      const res = await portalCall(server.url, browser, 'POST', '/api/portal/logout', { headers });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('CSRF_FAILED');
      expect((await portalCall(server.url, browser, 'GET', '/api/portal/session', { headers })).status).toBe(403);
    }
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/session')).status).toBe(200); // still signed in
  });
});

describe('tenant and user headers', () => {
  it('X-User-ID must be the signed-in user', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const other = await portalCall(server.url, browser, 'GET', '/api/portal/session', { headers: { 'x-user-id': stranger.userId } });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('FORBIDDEN');
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/session', { headers: { 'x-user-id': user.userId } })).status).toBe(
      200,
    );
  });

  it('X-Tenant-ID must be a tenant of the user', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const res = await portalCall(server.url, browser, 'GET', '/api/portal/session', { tenantId: stranger.tenantId });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/session', { tenantId: user.tenantId })).status).toBe(200);
  });
});

describe('one credential per door', () => {
  it('portal routes take the cookie only: a bearer token or an API key is not a portal session', async () => {
    const { access_token } = await logIn(server.url, user.email, user.password);
    const key = await http(server.url, 'POST', '/api-keys', {
      headers: bearer(access_token),
      body: { name: 'k', scopes: ['memories:read'] },
    });
    for (const headers of [
      bearer(access_token),
      { 'x-api-key': key.body.secret },
      { cookie: `tm_portal=${user.refreshToken.replace('tmr_', 'tmc_')}` },
    ]) {
      const res = await http(server.url, 'GET', '/api/portal/session', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
    }
  });

  it('bearer routes and refresh never take the portal cookie or its value', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const value = browser.cookie.split('=')[1]!;
    expect((await http(server.url, 'GET', '/auth/tenants', { headers: { cookie: browser.cookie } })).status).toBe(401);
    expect((await http(server.url, 'GET', '/auth/tenants', { headers: bearer(value) })).status).toBe(401);
    const asRefresh = value.replace('tmc_', 'tmr_');
    expect((await http(server.url, 'POST', '/auth/refresh', { headers: bearer(asRefresh) })).status).toBe(401);
    expect((await http(server.url, 'POST', '/auth/revoke', { headers: bearer(asRefresh) })).status).toBe(401);
    expect((await http(server.url, 'GET', '/memories', { headers: { cookie: browser.cookie } })).status).toBe(401);
    // The cookie session survived all of that.
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/session')).status).toBe(200);
  });
});
