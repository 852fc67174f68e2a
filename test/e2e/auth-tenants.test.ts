import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInRoles } from '../../server/services/roles.js';
import { bearer, signUp, type SignedUpUser } from '../support/auth.js';
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
const put = (path: string, headers: Record<string, string>, body: unknown) => http(server.url, 'PUT', path, { headers, body });

describe('tenants', () => {
  it('GET /auth/tenants lists the default tenant; POST creates another (201) owned by the caller', async () => {
    const u = await signUp(server.url, { name: 'Grace' });
    const before = await get('/auth/tenants', bearer(u.accessToken));
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ tenants: [{ tenant_id: u.tenantId, name: "Grace's workspace", created_at: expect.any(String), is_default: true }] });

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

describe('members', () => {
  let owner: SignedUpUser, other: SignedUpUser, third: SignedUpUser;
  beforeAll(async () => {
    [owner, other, third] = await Promise.all([signUp(server.url), signUp(server.url), signUp(server.url)]);
  });
  const asOwner = () => bearer(owner.accessToken);

  it('POST /auth/members adds an existing user (201); 404 unknown email; 409 already a member; 400 bad role', async () => {
    const added = await post('/auth/members', asOwner(), { email: other.email.toUpperCase(), role: 'member' });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ user_id: other.userId, email: other.email, name: null, role: 'member', joined_at: expect.any(String) });
    expect((await post('/auth/members', asOwner(), { email: 'ghost@example.com', role: 'member' })).status).toBe(404);
    expect((await post('/auth/members', asOwner(), { email: other.email, role: 'viewer' })).status).toBe(409);
    expect((await post('/auth/members', asOwner(), { email: third.email, role: 'superuser' })).status).toBe(400);
    // The new member sees the tenant and can act in it.
    const tenants = await get('/auth/tenants', bearer(other.accessToken));
    expect(tenants.body.tenants.map((t: { tenant_id: string; is_default: boolean }) => [t.tenant_id, t.is_default])).toEqual([
      [other.tenantId, true],
      [owner.tenantId, false],
    ]);
    expect((await get('/auth/members', bearer(other.accessToken, owner.tenantId))).status).toBe(200);
  });

  it('members without members:manage get 403 on changes', async () => {
    const asMember = bearer(other.accessToken, owner.tenantId);
    expect((await post('/auth/members', asMember, { email: third.email, role: 'viewer' })).status).toBe(403);
    expect((await put(`/auth/members/${owner.userId}`, asMember, { role: 'viewer' })).status).toBe(403);
  });

  it('PUT /auth/members/{user_id} changes a role and records member.role_change', async () => {
    const res = await put(`/auth/members/${other.userId}`, asOwner(), { role: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user_id: other.userId, role: 'admin' });
    const audit = await get('/auth/audit?limit=1', asOwner());
    expect(audit.body.events[0]).toMatchObject({
      type: 'member.role_change',
      actor: { user_id: owner.userId, key_id: null },
      target: { type: 'user', id: other.userId },
      details: { from: 'member', to: 'admin' },
    });
  });

  it('admins cannot grant owner or change an owner (403); only owners can', async () => {
    const asAdmin = bearer(other.accessToken, owner.tenantId);
    expect((await post('/auth/members', asAdmin, { email: third.email, role: 'owner' })).status).toBe(403);
    expect((await post('/auth/members', asAdmin, { email: third.email, role: 'viewer' })).status).toBe(201);
    expect((await put(`/auth/members/${third.userId}`, asAdmin, { role: 'owner' })).status).toBe(403);
    expect((await put(`/auth/members/${owner.userId}`, asAdmin, { role: 'member' })).status).toBe(403);
  });

  it('the last owner cannot be demoted (409); with a second owner they can', async () => {
    const last = await put(`/auth/members/${owner.userId}`, asOwner(), { role: 'admin' });
    expect(last.status).toBe(409);
    expect(last.body.code).toBe('CONFLICT');
    expect((await put(`/auth/members/${third.userId}`, asOwner(), { role: 'owner' })).status).toBe(200);
    expect((await put(`/auth/members/${owner.userId}`, asOwner(), { role: 'admin' })).status).toBe(200);
    // ...and the remaining owner is now the last one.
    expect((await put(`/auth/members/${third.userId}`, bearer(third.accessToken, owner.tenantId), { role: 'member' })).status).toBe(409);
  });

  it('PUT for a user who is not a member answers 404; a malformed id 400; GET /auth/members needs a token', async () => {
    const outsider = await signUp(server.url);
    expect((await put(`/auth/members/${outsider.userId}`, bearer(third.accessToken, owner.tenantId), { role: 'viewer' })).status).toBe(404);
    expect((await put('/auth/members/nope', bearer(third.accessToken, owner.tenantId), { role: 'viewer' })).status).toBe(400);
    expect((await get('/auth/members', {})).status).toBe(401);
  });
});

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
