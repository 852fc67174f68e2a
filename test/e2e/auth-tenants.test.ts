import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInRoles } from '../../server/services/roles.js';
import { bearer, signUp } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const get = (path: string, headers: Record<string, string>) => http(server.url, 'GET', path, { headers });
const post = (path: string, headers: Record<string, string>, body: unknown) => http(server.url, 'POST', path, { headers, body });

describe('tenants', () => {
  it('GET /auth/tenants lists the default tenant; POST creates another (201) owned by the caller', async () => {
    const u = await signUp(server.url, { name: 'Grace' });
    const before = await get('/auth/tenants', bearer(u.accessToken));
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      tenants: [{ tenant_id: u.tenantId, name: "Grace's workspace", created_at: expect.any(String), is_default: true }],
    });

    const created = await post('/auth/tenants', bearer(u.accessToken), { name: '  Research  ' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ tenant_id: expect.any(String), name: 'Research', created_at: expect.any(String), is_default: false });
    expect(await server.services.ports.tenants.get(created.body.tenant_id)).toMatchObject({ plan: 'free', status: 'active' });

    const after = await get('/auth/tenants', bearer(u.accessToken));
    expect(after.body.tenants.map((t: { tenant_id: string }) => t.tenant_id)).toEqual([u.tenantId, created.body.tenant_id]);
    // The caller owns it and can act in it through X-Tenant-ID.
    const members = await get('/auth/members', bearer(u.accessToken, created.body.tenant_id));
    expect(members.body.members).toEqual([expect.objectContaining({ user_id: u.userId, role: 'owner' })]);
    const audit = await get('/auth/audit', bearer(u.accessToken, created.body.tenant_id));
    expect(audit.body.events.map((e: { type: string }) => e.type)).toEqual(['tenant.create']);
  });

  it('GET /auth/gettenant answers the first tenant of the memberships', async () => {
    const u = await signUp(server.url);
    await post('/auth/tenants', bearer(u.accessToken), { name: 'Later' });
    const res = await get('/auth/gettenant', bearer(u.accessToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tenant_id: u.tenantId, name: expect.any(String), is_default: true });
  });

  it('POST /auth/tenants answers 400 without a name and 401 without a token', async () => {
    const u = await signUp(server.url);
    expect((await post('/auth/tenants', bearer(u.accessToken), {})).status).toBe(400);
    expect((await post('/auth/tenants', bearer(u.accessToken), { name: '   ' })).status).toBe(400);
    expect((await post('/auth/tenants', {}, { name: 'x' })).status).toBe(401);
    expect((await get('/auth/tenants', {})).status).toBe(401);
    expect((await get('/auth/gettenant', {})).status).toBe(401);
  });

  it('X-Tenant-ID naming a tenant the user is not in answers 403', async () => {
    const a = await signUp(server.url);
    const b = await signUp(server.url);
    const res = await get('/auth/tenants', bearer(a.accessToken, b.tenantId));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});

// Members, invitations, role changes and removal: test/e2e/members.test.ts.

describe('roles', () => {
  it('GET /roles lists the built-in roles with their permissions', async () => {
    const u = await signUp(server.url);
    const res = await get('/roles', bearer(u.accessToken));
    expect(res.status).toBe(200);
    expect(res.body.roles.map((r: { name: string }) => r.name)).toEqual(['owner', 'admin', 'member', 'viewer']);
    expect(res.body.roles[0]).toEqual({ name: 'owner', description: expect.any(String), permissions: [...builtInRoles[0]!.permissions] });
  });

  it('GET /roles/{name} answers one role, 404 for an unknown name, 401 without a token', async () => {
    const u = await signUp(server.url);
    const viewer = await get('/roles/viewer', bearer(u.accessToken));
    expect(viewer.status).toBe(200);
    expect(viewer.body.name).toBe('viewer');
    expect(viewer.body.permissions).not.toContain('memories:write');
    const unknown = await get('/roles/root', bearer(u.accessToken));
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    expect((await get('/roles', {})).status).toBe(401);
    expect((await get('/roles/owner', {})).status).toBe(401);
  });
});
