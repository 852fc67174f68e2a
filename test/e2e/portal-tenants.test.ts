import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, logIn, signUp } from '../support/auth.js';
import { portalCall, portalLogin } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/** `/api/portal/tenants`: the portal's tenant switcher list and its create-tenant dialog. */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('GET/POST /api/portal/tenants', () => {
  it('creates a tenant owned by the signed-in user (201, audited in the new tenant) and lists it after their first', async () => {
    const user = await signUp(server.url, { name: 'Tess' });
    const browser = await portalLogin(server.url, user.email, user.password);

    const created = await portalCall(server.url, browser, 'POST', '/api/portal/tenants', { body: { name: '  Research  ' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      tenant_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Research',
      role: 'owner',
      plan: 'free',
      status: 'active',
      is_default: false,
    });

    const listed = await portalCall(server.url, browser, 'GET', '/api/portal/tenants');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(listed.body.tenants.map((t: { tenant_id: string }) => t.tenant_id)).toEqual([user.tenantId, created.body.tenant_id]);
    expect(listed.body.tenants[0]).toMatchObject({ role: 'owner', is_default: true });

    // The new tenant's audit log starts with its creation, by this user, from the portal request.
    const tokens = await logIn(server.url, user.email, user.password);
    const audit = await http(server.url, 'GET', '/auth/audit', { headers: bearer(tokens.access_token, created.body.tenant_id) });
    expect(audit.status).toBe(200);
    expect(audit.body.events.at(-1)).toMatchObject({
      type: 'tenant.create',
      actor: { user_id: user.userId, key_id: null },
      target: { type: 'tenant', id: created.body.tenant_id },
    });
  });

  it('needs the CSRF token to create, refuses an empty or over-long name, and lists only the caller’s tenants', async () => {
    const user = await signUp(server.url);
    const other = await signUp(server.url);
    const browser = await portalLogin(server.url, user.email, user.password);

    const noCsrf = await portalCall(server.url, browser, 'POST', '/api/portal/tenants', {
      body: { name: 'X' },
      headers: { 'x-csrf-token': '' },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('CSRF_FAILED');

    for (const name of ['   ', 'x'.repeat(201)]) {
      const bad = await portalCall(server.url, browser, 'POST', '/api/portal/tenants', { body: { name } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_FAILED');
    }

    const listed = await portalCall(server.url, browser, 'GET', '/api/portal/tenants');
    expect(listed.body.tenants).toHaveLength(1);
    expect(listed.body.tenants[0].tenant_id).toBe(user.tenantId);
    expect(JSON.stringify(listed.body)).not.toContain(other.tenantId);
  });

  it('works over tRPC too, as the web portal calls it', async () => {
    const user = await signUp(server.url);
    const browser = await portalLogin(server.url, user.email, user.password);
    const res = await http(server.url, 'GET', `/trpc/portal.tenants?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, {
      headers: { cookie: browser.cookie },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.data.json.tenants).toHaveLength(1);
  });
});
