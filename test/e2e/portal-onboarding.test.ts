import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp } from '../support/auth.js';
import { createApiKey, withKey } from '../support/memory-api.js';
import { portalCall, portalLogin } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The onboarding checklist: its steps tick themselves from real events (a key created in the portal or
 * by REST, a write accepted with any key, a search answered), `completed_at` is set when the last is
 * done, and a member can tick a step by hand (audited; a viewer cannot).
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const none = { created_api_key: false, sent_first_memory: false, ran_first_search: false, completed_at: null };

describe('portal onboarding', () => {
  it('ticks each step from the real event, then sets completed_at once', async () => {
    const user = await signUp(server.url);
    const browser = await portalLogin(server.url, user.email, user.password);
    const state = async () => {
      const res = await portalCall(server.url, browser, 'GET', '/api/portal/onboarding');
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    expect(await state()).toEqual(none);

    const created = await portalCall(server.url, browser, 'POST', '/api/portal/credentials', {
      body: { name: 'first', scopes: ['memories:read', 'memories:write'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(await state()).toEqual({ ...none, created_api_key: true });

    const api = withKey(server.url, created.body.secret);
    expect((await api('POST', '/memories', { body: { content: 'my first memory' } })).status).toBe(202);
    expect(await state()).toEqual({ ...none, created_api_key: true, sent_first_memory: true });

    expect((await api('GET', '/memories/search?q=first')).status).toBe(200);
    const done = await state();
    expect(done).toEqual({ created_api_key: true, sent_first_memory: true, ran_first_search: true, completed_at: expect.any(String) });
    expect(Date.parse(done.completed_at)).toBeLessThanOrEqual(Date.now());

    // Later events change nothing: the first time stays.
    expect((await api('GET', '/memories/search?q=memory')).status).toBe(200);
    expect(await state()).toEqual(done);
    const again = await portalCall(server.url, browser, 'POST', '/api/portal/onboarding/complete', { body: { step: 'ran_first_search' } });
    expect(again.body).toEqual(done);
  });

  it('counts a key created through REST /api-keys', async () => {
    const user = await signUp(server.url);
    await createApiKey(server.url, user, ['memories:read']);
    const browser = await portalLogin(server.url, user.email, user.password);
    expect((await portalCall(server.url, browser, 'GET', '/api/portal/onboarding')).body).toEqual({ ...none, created_api_key: true });
  });

  it('lets a member tick a step by hand, audited with the user; refuses an unknown step, a viewer and a call without CSRF', async () => {
    const owner = await signUp(server.url);
    const viewer = await signUp(server.url);
    await addToTenant(server.url, owner, viewer, 'viewer');
    const browser = await portalLogin(server.url, owner.email, owner.password);
    const complete = (step: unknown, headers: Record<string, string> = {}) =>
      portalCall(server.url, browser, 'POST', '/api/portal/onboarding/complete', { body: { step }, headers });

    const res = await complete('ran_first_search');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...none, ran_first_search: true });
    const audit = await http(server.url, 'GET', '/auth/audit?limit=5', { headers: bearer(owner.accessToken) });
    expect(audit.body.events[0]).toMatchObject({
      type: 'onboarding.complete',
      actor: { user_id: owner.userId },
      target: { type: 'onboarding_step', id: 'ran_first_search' },
    });

    for (const step of ['launch_rocket', '', 3, null]) {
      const bad = await complete(step);
      expect(bad.status, `${String(step)}: ${bad.text}`).toBe(400);
    }
    const noCsrf = await complete('created_api_key', { 'x-csrf-token': '' });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('CSRF_FAILED');

    const viewerBrowser = await portalLogin(server.url, viewer.email, viewer.password);
    const denied = await portalCall(server.url, viewerBrowser, 'POST', '/api/portal/onboarding/complete', {
      body: { step: 'created_api_key' },
      tenantId: owner.tenantId,
    });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    const seen = await portalCall(server.url, viewerBrowser, 'GET', '/api/portal/onboarding', { tenantId: owner.tenantId });
    expect(seen.body).toEqual({ ...none, ran_first_search: true });

    await complete('created_api_key');
    const last = await complete('sent_first_memory');
    expect(last.body).toEqual({ created_api_key: true, sent_first_memory: true, ran_first_search: true, completed_at: expect.any(String) });
  });
});
