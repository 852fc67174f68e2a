import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followToCallback, startTestIdentityProvider, type TestIdentityProvider } from '../support/oidc-provider.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * SSO into the portal: a real OpenID Provider on loopback, the portal's own callback, a portal cookie
 * session at the end, and the sign-in bound to the browser that started it.
 */
let idp: TestIdentityProvider;
let server: TestServer;
let portalCallback: string;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  idp.accounts.set('alice-sub', { sub: 'alice-sub', email: 'alice-portal@example.test', email_verified: true, name: 'Alice' });
  server = await startTestServer({
    OIDC_PROVIDERS: JSON.stringify([
      { id: 'loop', issuer: idp.issuer, client_id: 'tenant-memory', client_secret: 'right-secret-0123456789' },
    ]),
  });
  portalCallback = `${server.url}/api/portal/sso/callback`;
  idp.configure(
    [{ client_id: 'tenant-memory', client_secret: 'right-secret-0123456789' }],
    [`${server.url}/auth/callback`, portalCallback],
  );
});

afterAll(async () => {
  await server?.close();
  await idp?.close();
});

/** Starts a portal SSO sign-in and walks the provider; returns the binding cookie and the callback URL. */
async function startAtProvider(account = 'alice-sub') {
  const started = await http(server.url, 'POST', '/api/portal/sso/login', { body: { provider: 'loop' } });
  expect(started.status).toBe(200);
  const binding = started.headers.get('set-cookie')!;
  expect(binding).toMatch(/^tm_portal_sso=[^;]+; Max-Age=600; Path=\/api\/portal\/sso; HttpOnly; SameSite=Lax$/);
  const callback = await followToCallback(started.body.authorization_url, portalCallback, { account });
  return { binding: binding.split(';')[0]!, callback };
}

const visit = (url: URL, cookie?: string) =>
  fetch(new URL(url.pathname + url.search, server.url), { redirect: 'manual', headers: cookie ? { cookie } : {} });

describe('SSO into the portal', () => {
  it('lands in a portal session: 302 to /portal/ with the session cookie; the session says sso', async () => {
    const { binding, callback } = await startAtProvider();
    const res = await visit(callback, binding);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/portal/');
    const [clearedBinding, cookie] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^tm_portal=tmc_.*HttpOnly; SameSite=Lax$/);
    expect(clearedBinding).toMatch(
      /^tm_portal_sso=; Max-Age=0; Path=\/api\/portal\/sso; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/,
    );
    const session = await http(server.url, 'GET', '/api/portal/session', { headers: { cookie: cookie!.split(';')[0]! } });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ email: 'alice-portal@example.test', method: 'sso' });
  });

  it('completes only in the browser that started it (no binding cookie, or another sign-in’s)', async () => {
    const first = await startAtProvider();
    const second = await startAtProvider();
    for (const cookie of [undefined, second.binding]) {
      const res = await visit(first.callback, cookie);
      expect(res.status).toBe(302);
      // Only a code travels in the URL (the sign-in page words it): no free text of anyone's on our page.
      expect(res.headers.get('location')).toBe('/portal/?sso_error=UNAUTHENTICATED');
      expect(res.headers.getSetCookie().filter((c) => c.startsWith('tm_portal='))).toEqual([]);
    }
  });

  it('a sign-in started for the API callback is not completed at the portal’s, nor the reverse', async () => {
    const api = await http(server.url, 'POST', '/auth/sso/login', { body: { provider: 'loop' } });
    const apiCallback = await followToCallback(api.body.authorization_url, `${server.url}/auth/callback`, { account: 'alice-sub' });
    const atPortal = await visit(new URL(`/api/portal/sso/callback${apiCallback.search}`, server.url), `tm_portal_sso=${api.body.state}`);
    expect(atPortal.headers.get('location')).toMatch(/^\/portal\/\?sso_error=[A-Z_]+$/);
    expect(atPortal.headers.getSetCookie().filter((c) => c.startsWith('tm_portal='))).toEqual([]);

    const { callback } = await startAtProvider();
    const atApi = await http(server.url, 'GET', `/auth/callback${callback.search}`);
    expect(atApi.status).toBe(401);
  });

  it('a provider refusal comes back to the portal as an error code', async () => {
    const started = await http(server.url, 'POST', '/api/portal/sso/login', { body: { provider: 'loop' } });
    const binding = started.headers.get('set-cookie')!.split(';')[0]!;
    const callback = await followToCallback(started.body.authorization_url, portalCallback, { deny: true });
    const res = await visit(callback, binding);
    expect(res.headers.get('location')).toBe('/portal/?sso_error=UNAUTHENTICATED');
  });

  it('refuses a start another site makes the browser send, and an unknown provider with 400', async () => {
    const cross = await http(server.url, 'POST', '/api/portal/sso/login', {
      body: { provider: 'loop' },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(cross.status).toBe(403);
    expect(cross.body.code).toBe('CSRF_FAILED');
    const unknown = await http(server.url, 'POST', '/api/portal/sso/login', { body: { provider: 'nope' } });
    expect(unknown.status).toBe(400);
  });
});
