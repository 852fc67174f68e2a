import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { portalCall, portalLogin, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Break-glass from the portal (`/api/portal/break-glass`): the same service and permissions as
 * `/auth/break-glass`. A request is decided by another owner or admin, never its requester; each
 * test builds its own tenant.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

type Who = 'owner' | 'owner2' | 'member' | 'viewer';

async function team() {
  const users = { owner: await signUp(server.url) } as Record<Who, SignedUpUser>;
  for (const [who, role] of [
    ['owner2', 'owner'],
    ['member', 'member'],
    ['viewer', 'viewer'],
  ] as const) {
    users[who] = await signUp(server.url);
    await addToTenant(server.url, users.owner, users[who], role);
  }
  const browsers = {} as Record<Who, PortalBrowser>;
  for (const who of ['owner', 'owner2', 'member', 'viewer'] as const)
    browsers[who] = await portalLogin(server.url, users[who].email, users[who].password);
  const call = (who: Who, method: string, url: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
    portalCall(server.url, browsers[who], method, url, { tenantId: users.owner.tenantId, ...opts });
  return { users, call };
}

const ask = { reason: 'production incident', duration_minutes: 30 };

describe('portal break-glass', () => {
  it("an owner's request is approved by another owner (not by themselves), then cannot be decided again", async () => {
    const t = await team();
    const requested = await t.call('owner', 'POST', '/api/portal/break-glass/request', { body: ask });
    expect(requested.status, requested.text).toBe(201);
    expect(requested.body).toMatchObject({ requester_id: t.users.owner.userId, status: 'pending', duration_minutes: 30 });
    const own = await t.call('owner', 'POST', `/api/portal/break-glass/${requested.body.id}/approve`);
    expect(own.status).toBe(403);
    expect(own.body.code).toBe('FORBIDDEN');
    const approved = await t.call('owner2', 'POST', `/api/portal/break-glass/${requested.body.id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ id: requested.body.id, status: 'approved' });
    const again = await t.call('owner2', 'POST', `/api/portal/break-glass/${requested.body.id}/deny`);
    expect(again.status).toBe(409);

    const audit = await http(server.url, 'GET', '/auth/audit?limit=50', { headers: bearer(t.users.owner.accessToken) });
    expect(audit.body.events).toContainEqual(
      expect.objectContaining({ type: 'break_glass.approve', actor: expect.objectContaining({ user_id: t.users.owner2.userId }) }),
    );
  });

  it("a member's request is listed for them and for owners, denied by an owner; viewers may not ask, members may not decide", async () => {
    const t = await team();
    const requested = await t.call('member', 'POST', '/api/portal/break-glass/request', { body: ask });
    expect(requested.status, requested.text).toBe(201);
    const viewerAsk = await t.call('viewer', 'POST', '/api/portal/break-glass/request', { body: ask });
    expect(viewerAsk.status).toBe(403);
    expect(viewerAsk.body.code).toBe('FORBIDDEN');
    const memberDecides = await t.call('member', 'POST', `/api/portal/break-glass/${requested.body.id}/approve`);
    expect(memberDecides.status).toBe(403);

    const ownersView = await t.call('owner', 'GET', '/api/portal/break-glass');
    expect(ownersView.status).toBe(200);
    expect(ownersView.body.requests.map((r: any) => r.id)).toEqual([requested.body.id]);
    expect((await t.call('member', 'GET', '/api/portal/break-glass')).body.requests.map((r: any) => r.id)).toEqual([requested.body.id]);
    expect((await t.call('viewer', 'GET', '/api/portal/break-glass')).body.requests).toEqual([]);

    const denied = await t.call('owner', 'POST', `/api/portal/break-glass/${requested.body.id}/deny`);
    expect(denied.status, denied.text).toBe(200);
    expect(denied.body.status).toBe('denied');
  });

  it("answers 400 for a bad body or id, 404 for an unknown or another tenant's request, 403 without the CSRF token", async () => {
    const t = await team();
    for (const body of [
      {},
      { reason: '', duration_minutes: 5 },
      { reason: 'x', duration_minutes: 0 },
      { reason: 'x', duration_minutes: 1e6 },
    ]) {
      const res = await t.call('member', 'POST', '/api/portal/break-glass/request', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await t.call('owner', 'POST', '/api/portal/break-glass/not-a-uuid/approve')).status).toBe(400);
    expect((await t.call('owner', 'POST', `/api/portal/break-glass/${randomUUID()}/approve`)).status).toBe(404);

    const other = await team();
    const theirs = await other.call('member', 'POST', '/api/portal/break-glass/request', { body: ask });
    for (const verb of ['approve', 'deny']) {
      const res = await t.call('owner', 'POST', `/api/portal/break-glass/${theirs.body.id}/${verb}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expect((await other.call('owner', 'GET', '/api/portal/break-glass')).body.requests[0].status).toBe('pending');

    const noCsrf = await t.call('member', 'POST', '/api/portal/break-glass/request', { body: ask, headers: { 'x-csrf-token': 'nope' } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('CSRF_FAILED');
    expect((await t.call('owner', 'GET', '/api/portal/break-glass')).body.requests).toEqual([]);
  });
});
