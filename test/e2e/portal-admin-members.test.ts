import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, stepUpToken, type SignedUpUser } from '../support/auth.js';
import { portalCall, portalLogin, portalStepUp, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The portal's members page (`/api/portal/members`, `invitations`, `roles`) over real HTTP: the same
 * member service and permissions as `/auth/members`, with step-up tokens that must come from this
 * portal session. Each test builds its own tenant, so none depends on another's changes.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

type Role = 'owner' | 'admin' | 'member' | 'viewer';

/** A fresh tenant with one user of each role, each signed in to the portal. */
async function team() {
  const users = { owner: await signUp(server.url) } as Record<Role, SignedUpUser>;
  for (const role of ['admin', 'member', 'viewer'] as const) {
    users[role] = await signUp(server.url);
    await addToTenant(server.url, users.owner, users[role], role);
  }
  const browsers = {} as Record<Role, PortalBrowser>;
  for (const role of ['owner', 'admin', 'member', 'viewer'] as const)
    browsers[role] = await portalLogin(server.url, users[role].email, users[role].password);
  const tenantId = users.owner.tenantId;
  const call = (role: Role, method: string, url: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
    portalCall(server.url, browsers[role], method, url, { tenantId, ...opts });
  const stepUp = (role: Role, action: string) => portalStepUp(server.url, browsers[role], action, users[role].password, tenantId);
  return { users, browsers, tenantId, call, stepUp };
}

const newEmail = () => `invitee-${randomUUID()}@example.test`;

describe('members list and roles', () => {
  it('every role reads the members with their roles, and the built-in roles with permissions', async () => {
    const t = await team();
    const res = await t.call('viewer', 'GET', '/api/portal/members');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const byUser = Object.fromEntries(res.body.members.map((m: any) => [m.user_id, m.role]));
    expect(byUser).toEqual({
      [t.users.owner.userId]: 'owner',
      [t.users.admin.userId]: 'admin',
      [t.users.member.userId]: 'member',
      [t.users.viewer.userId]: 'viewer',
    });
    const roles = await t.call('viewer', 'GET', '/api/portal/roles');
    expect(roles.status).toBe(200);
    expect(roles.body.roles.map((r: any) => r.name)).toEqual(['owner', 'admin', 'member', 'viewer']);
    expect(roles.body.roles.find((r: any) => r.name === 'viewer').permissions).toContain('members:read');
    expect(roles.body.roles.find((r: any) => r.name === 'viewer').permissions).not.toContain('members:manage');
  });
});

describe('invitations', () => {
  it('owners and admins invite (202) and see pending invitations; members and viewers are refused (403)', async () => {
    const t = await team();
    for (const role of ['member', 'viewer'] as const) {
      const refused = await t.call(role, 'POST', '/api/portal/members', { body: { email: newEmail(), role: 'viewer' } });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');
      expect((await t.call(role, 'GET', '/api/portal/invitations')).status).toBe(403);
    }
    const email = newEmail();
    const invited = await t.call('admin', 'POST', '/api/portal/members', { body: { email, role: 'member' } });
    expect(invited.status, invited.text).toBe(202);
    expect(invited.body).toMatchObject({ email, role: 'member', status: 'pending' });
    const list = await t.call('owner', 'GET', '/api/portal/invitations');
    expect(list.status).toBe(200);
    expect(list.body.invitations).toContainEqual(
      expect.objectContaining({ invitation_id: invited.body.invitation_id, invited_by: t.users.admin.userId }),
    );
    const bad = await t.call('owner', 'POST', '/api/portal/members', { body: { email: 'not-an-email', role: 'viewer' } });
    expect(bad.status).toBe(400);
    const noCsrf = await t.call('owner', 'POST', '/api/portal/members', {
      body: { email: newEmail(), role: 'viewer' },
      headers: { 'x-csrf-token': '' },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('CSRF_FAILED');
  });

  it('inviting an admin needs a members.promote step-up earned in this portal session', async () => {
    const t = await team();
    const body = { email: newEmail(), role: 'admin' };
    const without = await t.call('owner', 'POST', '/api/portal/members', { body });
    expect(without.status).toBe(403);
    expect(without.body.code).toBe('STEP_UP_REQUIRED');
    // A token earned through the bearer door belongs to another session: not good here.
    const bearerToken = await stepUpToken(server.url, t.users.owner, 'members.promote');
    const foreignToken = await t.call('owner', 'POST', '/api/portal/members', { body, headers: { 'x-step-up-token': bearerToken } });
    expect(foreignToken.status).toBe(403);
    expect(foreignToken.body.code).toBe('STEP_UP_REQUIRED');
    const token = await t.stepUp('owner', 'members.promote');
    const ok = await t.call('owner', 'POST', '/api/portal/members', { body, headers: { 'x-step-up-token': token } });
    expect(ok.status, ok.text).toBe(202);
  });

  it("cancels a pending invitation (then 409); an unknown or another tenant's invitation is 404", async () => {
    const t = await team();
    const invited = await t.call('owner', 'POST', '/api/portal/members', { body: { email: newEmail(), role: 'viewer' } });
    const id = invited.body.invitation_id;
    expect((await t.call('viewer', 'DELETE', `/api/portal/invitations/${id}`)).status).toBe(403);
    const cancelled = await t.call('admin', 'DELETE', `/api/portal/invitations/${id}`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toEqual({ invitation_id: id, status: 'cancelled' });
    expect((await t.call('owner', 'GET', '/api/portal/invitations')).body.invitations).toEqual([]);
    const again = await t.call('admin', 'DELETE', `/api/portal/invitations/${id}`);
    expect(again.status).toBe(409);
    expect((await t.call('admin', 'DELETE', `/api/portal/invitations/${randomUUID()}`)).status).toBe(404);
    expect((await t.call('admin', 'DELETE', '/api/portal/invitations/not-a-uuid')).status).toBe(400);

    const other = await team();
    const theirs = await other.call('owner', 'POST', '/api/portal/members', { body: { email: newEmail(), role: 'viewer' } });
    const foreign = await t.call('owner', 'DELETE', `/api/portal/invitations/${theirs.body.invitation_id}`);
    expect(foreign.status).toBe(404);
    expect((await other.call('owner', 'GET', '/api/portal/invitations')).body.invitations).toHaveLength(1);
  });
});

describe('role changes', () => {
  it('owners and admins change roles; promotion needs a portal step-up; members and viewers are refused', async () => {
    const t = await team();
    const target = `/api/portal/members/${t.users.viewer.userId}`;
    for (const role of ['member', 'viewer'] as const) {
      const refused = await t.call(role, 'PATCH', target, { body: { role: 'member' } });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');
    }
    const changed = await t.call('admin', 'PATCH', target, { body: { role: 'member' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ user_id: t.users.viewer.userId, role: 'member' });
    const promote = await t.call('owner', 'PATCH', target, { body: { role: 'admin' } });
    expect(promote.status).toBe(403);
    expect(promote.body.code).toBe('STEP_UP_REQUIRED');
    const token = await t.stepUp('owner', 'members.promote');
    const promoted = await t.call('owner', 'PATCH', target, { body: { role: 'admin' }, headers: { 'x-step-up-token': token } });
    expect(promoted.status, promoted.text).toBe(200);
    expect(promoted.body.role).toBe('admin');
    // Admins never touch the owner role.
    const adminToken = await t.stepUp('admin', 'members.promote');
    const toOwner = await t.call('admin', 'PATCH', target, { body: { role: 'owner' }, headers: { 'x-step-up-token': adminToken } });
    expect(toOwner.status).toBe(403);

    const audit = await http(server.url, 'GET', '/auth/audit?limit=50', { headers: bearer(t.users.owner.accessToken) });
    expect(audit.body.events).toContainEqual(
      expect.objectContaining({ type: 'member.role_change', actor: expect.objectContaining({ user_id: t.users.owner.userId }) }),
    );
  });

  it("answers 400 for an unknown role or a malformed id, 404 for another tenant's user", async () => {
    const t = await team();
    expect((await t.call('owner', 'PATCH', `/api/portal/members/${t.users.viewer.userId}`, { body: { role: 'emperor' } })).status).toBe(
      400,
    );
    expect((await t.call('owner', 'PATCH', '/api/portal/members/nobody', { body: { role: 'viewer' } })).status).toBe(400);
    const stranger = await signUp(server.url);
    const foreign = await t.call('owner', 'PATCH', `/api/portal/members/${stranger.userId}`, { body: { role: 'viewer' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
  });
});

describe('removal', () => {
  it('removes a member with a members.remove step-up; viewers may not remove others; the last owner stays (409)', async () => {
    const t = await team();
    const url = `/api/portal/members/${t.users.member.userId}`;
    const byViewer = await t.call('viewer', 'DELETE', url);
    expect(byViewer.status).toBe(403);
    expect(byViewer.body.code).toBe('FORBIDDEN');
    const without = await t.call('admin', 'DELETE', url);
    expect(without.status).toBe(403);
    expect(without.body.code).toBe('STEP_UP_REQUIRED');
    const removed = await t.call('admin', 'DELETE', url, { headers: { 'x-step-up-token': await t.stepUp('admin', 'members.remove') } });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toEqual({ user_id: t.users.member.userId, removed: true, revoked_api_keys: [] });
    const members = (await t.call('owner', 'GET', '/api/portal/members')).body.members.map((m: any) => m.user_id);
    expect(members).not.toContain(t.users.member.userId);
    // The removed member's portal session no longer reaches the tenant.
    expect((await t.call('member', 'GET', '/api/portal/members')).status).toBe(403);
    expect((await t.call('admin', 'DELETE', url)).status).toBe(404);

    const leave = await t.call('owner', 'DELETE', `/api/portal/members/${t.users.owner.userId}`, {
      headers: { 'x-step-up-token': await t.stepUp('owner', 'members.remove') },
    });
    expect(leave.status).toBe(409);
  });

  it('anyone may leave (with their own step-up)', async () => {
    const t = await team();
    const left = await t.call('viewer', 'DELETE', `/api/portal/members/${t.users.viewer.userId}`, {
      headers: { 'x-step-up-token': await t.stepUp('viewer', 'members.remove') },
    });
    expect(left.status, left.text).toBe(200);
  });
});
