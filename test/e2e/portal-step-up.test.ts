import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, logIn, signUp, stepUpToken, type SignedUpUser } from '../support/auth.js';
import { portalCall, portalLogin } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * `POST /api/portal/step-up`: re-authentication inside the portal session. The token it returns is
 * bound to the user, tenant, action and the portal session that earned it, and expires.
 */
let server: TestServer;
let user: SignedUpUser;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server.url);
});
afterAll(async () => {
  await server?.close();
});

describe('portal step-up', () => {
  it('returns a token for the action after the password, and audits it with the user', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const res = await portalCall(server.url, browser, 'POST', '/api/portal/step-up', {
      body: { action: 'data.export', password: user.password },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ step_up_token: expect.any(String), expires_in: 300, action: 'data.export' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { access_token: accessToken } = await logIn(server.url, user.email, user.password);
    const audit = await (await http(server.url, 'GET', '/auth/audit?limit=20', { headers: bearer(accessToken) })).body;
    expect(audit.events).toContainEqual(
      expect.objectContaining({ type: 'auth.step_up', actor: expect.objectContaining({ user_id: user.userId }) }),
    );
  });

  it('refuses a wrong or missing password, an unknown action, and a call without the CSRF token', async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    const wrong = await portalCall(server.url, browser, 'POST', '/api/portal/step-up', {
      body: { action: 'data.export', password: 'nope-nope' },
    });
    expect(wrong.status).toBe(401);
    const missing = await portalCall(server.url, browser, 'POST', '/api/portal/step-up', { body: { action: 'data.export' } });
    expect(missing.status).toBe(400);
    expect(missing.body.fields).toEqual([expect.objectContaining({ field: 'password' })]);
    const unknown = await portalCall(server.url, browser, 'POST', '/api/portal/step-up', {
      body: { action: 'data.everything', password: user.password },
    });
    expect(unknown.status).toBe(400);
    const noCsrf = await portalCall(server.url, browser, 'POST', '/api/portal/step-up', {
      body: { action: 'data.export', password: user.password },
      headers: { 'x-csrf-token': '' },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('CSRF_FAILED');
  });

  it('is bound to the portal session: a bearer route refuses it, as a portal route refuses a bearer one', async () => {
    const [owner, member] = await Promise.all([signUp(server.url), signUp(server.url)]);
    await addToTenant(server.url, owner, member, 'member');
    const browser = await portalLogin(server.url, owner.email, owner.password);
    const portalToken = (
      await portalCall(server.url, browser, 'POST', '/api/portal/step-up', { body: { action: 'members.remove', password: owner.password } })
    ).body.step_up_token;
    const viaBearer = await http(server.url, 'DELETE', `/auth/members/${member.userId}`, {
      headers: { ...bearer(owner.accessToken, owner.tenantId), 'x-step-up-token': portalToken },
    });
    expect(viaBearer.status).toBe(403);
    expect(viaBearer.body.code).toBe('STEP_UP_REQUIRED');
    const bearerToken = await stepUpToken(server.url, owner, 'members.remove');
    const viaPortal = await portalCall(server.url, browser, 'DELETE', `/api/portal/members/${member.userId}`, {
      headers: { 'x-step-up-token': bearerToken },
    });
    expect(viaPortal.status).toBe(403);
    expect(viaPortal.body.code).toBe('STEP_UP_REQUIRED');
    const withOwn = await portalCall(server.url, browser, 'DELETE', `/api/portal/members/${member.userId}`, {
      headers: { 'x-step-up-token': portalToken },
    });
    expect(withOwn.status).toBe(200);
  });
});
