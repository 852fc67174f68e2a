import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, stepUpToken } from '../support/auth.js';
import { portalCall, portalLogin } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The portal session's edges: HTTPS declared by PUBLIC_URL, one live session per browser, a user who
 * lost the tenant they signed in to, and /trpc answers that must not stream past the cookie headers.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('HTTPS declared by PUBLIC_URL', () => {
  it('sets the __Host- cookie with Secure even when the request reached us over plain HTTP (a proxy we do not trust)', async () => {
    const behindProxy = await startTestServer({ PUBLIC_URL: 'https://memory.example.test' });
    try {
      const user = await signUp(behindProxy.url);
      const res = await http(behindProxy.url, 'POST', '/api/portal/login', { body: { email: user.email, password: user.password } });
      expect(res.status).toBe(200);
      const cookie = res.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^__Host-tm_portal=tmc_[^;]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
      const value = cookie.split(';')[0]!.slice('__Host-tm_portal='.length);
      const withHost = await http(behindProxy.url, 'GET', '/api/portal/session', { headers: { cookie: `__Host-tm_portal=${value}` } });
      expect(withHost.status).toBe(200);
      // The plain name could be planted by a sibling host over HTTP: it is not read.
      const plain = await http(behindProxy.url, 'GET', '/api/portal/session', { headers: { cookie: `tm_portal=${value}` } });
      expect(plain.status).toBe(401);
    } finally {
      await behindProxy.close();
    }
  });
});

describe('one live session per browser', () => {
  it('signing in again with the old cookie still set ends the old session', async () => {
    const user = await signUp(server.url);
    const first = await portalLogin(server.url, user.email, user.password);
    const second = await portalLogin(server.url, user.email, user.password, { cookie: first.cookie });
    expect((await portalCall(server.url, first, 'GET', '/api/portal/session')).status).toBe(401);
    expect((await portalCall(server.url, second, 'GET', '/api/portal/session')).status).toBe(200);
  });

  it("another user's cookie, or a dead one, does not stop the sign-in", async () => {
    const [a, b] = await Promise.all([signUp(server.url), signUp(server.url)]);
    const signedOut = await portalLogin(server.url, a.email, a.password);
    await portalCall(server.url, signedOut, 'POST', '/api/portal/logout');
    const res = await portalLogin(server.url, b.email, b.password, { cookie: signedOut.cookie });
    expect((await portalCall(server.url, res, 'GET', '/api/portal/session')).body.user_id).toBe(b.userId);
  });
});

describe('a user removed from the tenant they signed in to', () => {
  it('can still read their session (to pick another tenant) and sign out; routes of that tenant answer 403', async () => {
    const [leaver, successor] = await Promise.all([signUp(server.url), signUp(server.url)]);
    await addToTenant(server.url, leaver, successor, 'owner');
    const browser = await portalLogin(server.url, leaver.email, leaver.password);
    expect(browser.tenantId).toBe(leaver.tenantId);
    const removal = await stepUpToken(server.url, successor, 'members.remove', leaver.tenantId);
    const removed = await http(server.url, 'DELETE', `/auth/members/${leaver.userId}`, {
      headers: { ...bearer(successor.accessToken, leaver.tenantId), 'x-step-up-token': removal },
    });
    expect(removed.status).toBe(200);

    const session = await portalCall(server.url, browser, 'GET', '/api/portal/session');
    expect(session.status).toBe(200);
    expect(session.body.tenants).toEqual([]);
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/session', { tenantId: leaver.tenantId })).status).toBe(403);
    const stepUp = await portalCall(server.url, browser, 'POST', '/api/portal/step-up', {
      body: { action: 'data.export', password: leaver.password },
    });
    expect(stepUp.status).toBe(403);
    expect((await portalCall(server.url, browser, 'POST', '/api/portal/logout')).status).toBe(200);
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/session')).status).toBe(401);
  });
});

describe('/trpc answers of portal procedures', () => {
  it('are never streamed: a jsonl request still gets its cookie and no-store in one JSON answer', async () => {
    const user = await signUp(server.url);
    const res = await fetch(`${server.url}/trpc/portal.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'trpc-accept': 'application/jsonl' },
      body: JSON.stringify({ json: { email: user.email, password: user.password } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.getSetCookie()).toEqual([expect.stringMatching(/^tm_portal=tmc_/)]);
  });

  it('are no-store even when the call failed before its middleware ran, in a batch with other calls', async () => {
    const res = await fetch(`${server.url}/trpc/system.info,portal.session?batch=1&input=${encodeURIComponent('{}')}`);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
