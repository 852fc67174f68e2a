import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { createApiKey } from '../support/memory-api.js';
import { portalCall, portalLogin, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * `/api/portal/credentials`: the tenant's API keys from the portal, through the `/api-keys` service:
 * the secret once (create, rotate), never in the list; rotation ends the old secret, revocation the
 * key; CSRF on every change; a viewer lists but cannot create; another tenant's key is 404.
 */
let server: TestServer;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let ownerBrowser: PortalBrowser;
let viewerBrowser: PortalBrowser;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url);
  viewer = await signUp(server.url);
  await addToTenant(server.url, owner, viewer, 'viewer');
  ownerBrowser = await portalLogin(server.url, owner.email, owner.password);
  viewerBrowser = await portalLogin(server.url, viewer.email, viewer.password);
}, 30_000);
afterAll(async () => {
  await server?.close();
});

const current = (secret: string) => http(server.url, 'GET', '/api-keys/current', { headers: { 'x-api-key': secret } });
const create = (body: unknown, headers: Record<string, string> = {}) =>
  portalCall(server.url, ownerBrowser, 'POST', '/api/portal/credentials', { body, headers });

describe('portal credentials', () => {
  it('creates a key with its restrictions, shows the secret once, and lists it without', async () => {
    const res = await create({ name: 'ingest', scopes: ['memories:write'], namespaces: ['crm'], ip_allowlist: ['127.0.0.1', '::1'] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      name: 'ingest',
      scopes: ['memories:write'],
      namespaces: ['crm'],
      ip_allowlist: ['127.0.0.1', '::1'],
      created_by: owner.userId,
      last_used_at: null,
      expires_at: null,
      status: 'active',
    });
    expect(res.body.secret).toMatch(/^tmk_/);
    expect(res.body.secret.startsWith(res.body.prefix)).toBe(true);
    expect((await current(res.body.secret)).body.key_id).toBe(res.body.id);

    const list = await portalCall(server.url, ownerBrowser, 'GET', '/api/portal/credentials');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(res.body.secret);
    const listed = list.body.credentials.find((c: { id: string }) => c.id === res.body.id);
    expect(listed).toEqual({ ...res.body, secret: undefined, last_used_at: expect.anything() });
    expect(Object.keys(listed)).not.toContain('secret');

    const audit = await http(server.url, 'GET', '/auth/audit?limit=5', { headers: bearer(owner.accessToken) });
    expect(audit.body.events).toContainEqual(
      expect.objectContaining({
        type: 'api_key.create',
        actor: expect.objectContaining({ user_id: owner.userId }),
        target: expect.objectContaining({ id: res.body.id }),
      }),
    );
  });

  it('rotates: the new secret shown once works, the old one stops', async () => {
    const made = (await create({ name: 'rotating', scopes: ['memories:read'] })).body;
    const rotated = await portalCall(server.url, ownerBrowser, 'POST', `/api/portal/credentials/${made.id}/rotate`, { body: {} });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.secret).not.toBe(made.secret);
    expect(rotated.body.rotated_at).toEqual(expect.any(String));
    expect((await current(made.secret)).status).toBe(401);
    expect((await current(rotated.body.secret)).status).toBe(200);
  });

  it('revokes: the key answers 401 from then on', async () => {
    const made = (await create({ name: 'revoked', scopes: ['memories:read'] })).body;
    expect((await current(made.secret)).status).toBe(200);
    const revoked = await portalCall(server.url, ownerBrowser, 'DELETE', `/api/portal/credentials/${made.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toMatchObject({ id: made.id, status: 'revoked', revoked_at: expect.any(String) });
    expect((await current(made.secret)).status).toBe(401);
  });

  it('needs the CSRF token on every change', async () => {
    const made = (await create({ name: 'csrf', scopes: ['memories:read'] })).body;
    const noCsrf = { 'x-csrf-token': '' };
    const attempts = [
      await create({ name: 'nope', scopes: ['memories:read'] }, noCsrf),
      await portalCall(server.url, ownerBrowser, 'POST', `/api/portal/credentials/${made.id}/rotate`, { body: {}, headers: noCsrf }),
      await portalCall(server.url, ownerBrowser, 'DELETE', `/api/portal/credentials/${made.id}`, { headers: noCsrf }),
    ];
    for (const res of attempts) {
      expect(res.status, res.text).toBe(403);
      expect(res.body.code).toBe('CSRF_FAILED');
    }
    expect((await current(made.secret)).status).toBe(200);
  });

  it('lets a viewer list but not create; refuses scopes beyond the role and unknown fields', async () => {
    const asViewer = (method: string, body?: unknown) =>
      portalCall(server.url, viewerBrowser, method, '/api/portal/credentials', { body, tenantId: owner.tenantId });
    expect((await asViewer('GET')).status).toBe(200);
    const denied = await asViewer('POST', { name: 'viewer key', scopes: ['memories:read'] });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    expect((await create({ name: 'x', scopes: ['everything:all'] })).status).toBe(400);
    expect((await create({ name: 'x', scopes: [] })).status).toBe(400);
    expect((await create({ name: 'x', scopes: ['memories:read'], expires_at: '2030-01-01T00:00:00Z' })).status).toBe(400);
  });

  it("answers 404 for another tenant's key, and leaves it working", async () => {
    const stranger = await signUp(server.url);
    const theirSecret = await createApiKey(server.url, stranger, ['memories:read']);
    const theirId = (await current(theirSecret)).body.key_id;
    const rotate = await portalCall(server.url, ownerBrowser, 'POST', `/api/portal/credentials/${theirId}/rotate`, { body: {} });
    expect(rotate.status).toBe(404);
    const revoke = await portalCall(server.url, ownerBrowser, 'DELETE', `/api/portal/credentials/${theirId}`);
    expect(revoke.status).toBe(404);
    expect((await current(theirSecret)).status).toBe(200);
    const list = (await portalCall(server.url, ownerBrowser, 'GET', '/api/portal/credentials')).body.credentials;
    expect(list.map((c: { id: string }) => c.id)).not.toContain(theirId);
  });

  it('lists the scopes with what they allow and whether the role may grant them', async () => {
    const own = await portalCall(server.url, ownerBrowser, 'GET', '/api/portal/scopes');
    expect(own.status).toBe(200);
    expect(own.body.scopes.map((s: { scope: string }) => s.scope)).toEqual([
      'memories:read',
      'memories:write',
      'knowledge:read',
      'knowledge:write',
      'knowledge:admin',
      'usage:read',
    ]);
    for (const s of own.body.scopes) expect(s).toEqual({ scope: s.scope, description: expect.any(String), grantable: true });
    const seen = (await portalCall(server.url, viewerBrowser, 'GET', '/api/portal/scopes', { tenantId: owner.tenantId })).body.scopes;
    const grantable = Object.fromEntries(seen.map((s: { scope: string; grantable: boolean }) => [s.scope, s.grantable]));
    expect(grantable).toMatchObject({ 'memories:read': true, 'memories:write': false, 'knowledge:admin': false });
  });
});
