import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Cross-tenant isolation: a user of tenant A, however they phrase a request, sees nothing of tenant
 * B; naming B in X-Tenant-ID is refused (403) and B's ids answer 404 from A's context.
 */
let server: TestServer;
let a: SignedUpUser, b: SignedUpUser, bMember: SignedUpUser;
let bRequestId: string;

beforeAll(async () => {
  server = await startTestServer();
  [a, b, bMember] = await Promise.all([signUp(server.url), signUp(server.url), signUp(server.url)]);
  await addToTenant(server.url, b, bMember, 'member');
  const req = await http(server.url, 'POST', '/auth/break-glass/request', {
    headers: bearer(bMember.accessToken, b.tenantId),
    body: { reason: 'b only', duration_minutes: 5 },
  });
  bRequestId = req.body.id;
  await http(server.url, 'POST', '/auth/tenants', { headers: bearer(b.accessToken), body: { name: 'B second' } });
});
afterAll(async () => {
  await server?.close();
});

const bearerRoutes: Array<[method: string, path: string, body?: unknown]> = [
  ['GET', '/auth/tenants'],
  ['POST', '/auth/tenants', { name: 'sneaky' }],
  ['GET', '/auth/gettenant'],
  ['GET', '/auth/members'],
  ['POST', '/auth/members', { email: 'x@example.com', role: 'viewer' }],
  ['GET', '/auth/audit'],
  ['GET', '/auth/audit/verify'],
  ['GET', '/auth/break-glass'],
  ['POST', '/auth/break-glass/request', { reason: 'x', duration_minutes: 5 }],
  ['POST', '/auth/step-up', { action: 'data.export', password: 'irrelevant-password' }],
  ['GET', '/roles'],
  ['GET', '/roles/owner'],
];

describe('cross-tenant isolation', () => {
  it('every bearer route refuses X-Tenant-ID of a tenant the caller is not in (403)', async () => {
    for (const [method, path, body] of bearerRoutes) {
      const res = await http(server.url, method, path, { headers: bearer(a.accessToken, b.tenantId), body });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    for (const [method, path] of [
      ['POST', `/auth/break-glass/${bRequestId}/approve`],
      ['POST', `/auth/break-glass/${bRequestId}/deny`],
      ['PUT', `/auth/members/${b.userId}`],
    ] as const) {
      const res = await http(server.url, method, path, { headers: bearer(a.accessToken, b.tenantId), body: { role: 'viewer' } });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });

  it('in its own tenant, A sees none of B: tenants, members, audit, break-glass', async () => {
    const asA = bearer(a.accessToken);
    const tenants = (await http(server.url, 'GET', '/auth/tenants', { headers: asA })).body.tenants;
    expect(tenants.map((t: { tenant_id: string }) => t.tenant_id)).toEqual([a.tenantId]);
    const members = (await http(server.url, 'GET', '/auth/members', { headers: asA })).body.members;
    expect(members.map((m: { user_id: string }) => m.user_id)).toEqual([a.userId]);
    const events = (await http(server.url, 'GET', '/auth/audit?limit=200', { headers: asA })).body.events as Array<{
      tenant_id: string;
      actor: { user_id: string | null };
    }>;
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.tenant_id === a.tenantId)).toBe(true);
    expect(events.some((e) => e.actor.user_id === b.userId || e.actor.user_id === bMember.userId)).toBe(false);
    expect((await http(server.url, 'GET', '/auth/break-glass', { headers: asA })).body.requests).toEqual([]);
    expect((await http(server.url, 'GET', '/auth/gettenant', { headers: asA })).body.tenant_id).toBe(a.tenantId);
  });

  it("B's ids answer 404 from A's tenant", async () => {
    const asA = bearer(a.accessToken);
    expect((await http(server.url, 'POST', `/auth/break-glass/${bRequestId}/approve`, { headers: asA })).status).toBe(404);
    expect((await http(server.url, 'POST', `/auth/break-glass/${bRequestId}/deny`, { headers: asA })).status).toBe(404);
    expect((await http(server.url, 'PUT', `/auth/members/${b.userId}`, { headers: asA, body: { role: 'viewer' } })).status).toBe(404);
    expect((await http(server.url, 'PUT', `/auth/members/${bMember.userId}`, { headers: asA, body: { role: 'owner' } })).status).toBe(404);
    // B's request is untouched.
    const list = (await http(server.url, 'GET', '/auth/break-glass', { headers: bearer(b.accessToken) })).body.requests;
    expect(list).toEqual([expect.objectContaining({ id: bRequestId, status: 'pending' })]);
  });

  it("A's step-up token does not work in B's tenant, and B's member gains nothing in A", async () => {
    const token = (
      await http(server.url, 'POST', '/auth/step-up', {
        headers: bearer(a.accessToken),
        body: { action: 'data.export', password: a.password },
      })
    ).body.step_up_token;
    await expect(
      server.services.auth.verifyStepUp(token, { userId: a.userId, tenantId: b.tenantId, action: 'data.export' }),
    ).rejects.toMatchObject({ code: 'STEP_UP_REQUIRED' });
    expect((await http(server.url, 'GET', '/auth/members', { headers: bearer(bMember.accessToken, a.tenantId) })).status).toBe(403);
  });

  it('a member added to two tenants acts in each only through X-Tenant-ID, with that tenant’s role', async () => {
    // A third tenant of its own, so A's member list stays A's alone for the tests above, in any order.
    const a = await signUp(server.url);
    await addToTenant(server.url, a, bMember, 'viewer');
    // Viewer in A: no members:manage there, even though bMember could request break-glass in B as a member.
    expect(
      (
        await http(server.url, 'POST', '/auth/break-glass/request', {
          headers: bearer(bMember.accessToken, a.tenantId),
          body: { reason: 'x', duration_minutes: 5 },
        })
      ).status,
    ).toBe(403);
    expect((await http(server.url, 'GET', '/auth/members', { headers: bearer(bMember.accessToken, a.tenantId) })).status).toBe(200);
  });
});
