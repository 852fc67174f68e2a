import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, stepUpToken, type SignedUpUser } from '../support/auth.js';
import { membershipServer } from '../support/membership-server.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/** Members join by invitation; role changes and removal follow the actor's role and need step-up tokens. */
let nowMs = Date.now();
const TTL_SECONDS = 3600;
const server = membershipServer(() => nowMs, TTL_SECONDS);

const call = (u: SignedUpUser, method: string, url: string, body?: unknown, extra: Record<string, string> = {}, tenantId?: string) =>
  http(server.url, method, url, { headers: { ...bearer(u.accessToken, tenantId), ...extra }, body });
const invite = (inviter: SignedUpUser, email: string, role: string, extra: Record<string, string> = {}) =>
  call(inviter, 'POST', '/auth/members', { email, role }, extra);
const pending = async (u: SignedUpUser) =>
  (await call(u, 'GET', '/auth/invitations')).body.invitations as Array<{ invitation_id: string; tenant_id: string; role: string }>;
const tenantsOf = async (u: SignedUpUser) =>
  (await call(u, 'GET', '/auth/tenants')).body.tenants.map((t: { tenant_id: string }) => t.tenant_id);
const memberIds = async (owner: SignedUpUser) =>
  (await call(owner, 'GET', '/auth/members')).body.members.map((m: { user_id: string }) => m.user_id);
const lastEvent = async (owner: SignedUpUser) => (await call(owner, 'GET', '/auth/audit?limit=1')).body.events[0];
const promote = (u: SignedUpUser, tenantId?: string) => server.stepUpHeader(u, 'members.promote', tenantId);
const removal = (u: SignedUpUser, tenantId?: string) => server.stepUpHeader(u, 'members.remove', tenantId);
const up = server.up;

describe('invitations', () => {
  it('POST /auth/members answers 202 with one shape for a registered and an unknown email, and adds no one', async () => {
    const [owner, registered] = await Promise.all([up(), up()]);
    const known = await invite(owner, registered.email.toUpperCase(), 'member');
    const unknown = await invite(owner, `ghost-${randomUUID()}@example.test`, 'member');
    for (const res of [known, unknown]) {
      expect(res.status).toBe(202);
      expect(Object.keys(res.body).sort()).toEqual(['email', 'expires_at', 'invitation_id', 'role', 'status']);
      expect(res.body).toMatchObject({ role: 'member', status: 'pending', expires_at: new Date(nowMs + TTL_SECONDS * 1000).toISOString() });
    }
    expect(known.body.email).toBe(registered.email);
    expect(await memberIds(owner)).toEqual([owner.userId]);
    expect(await tenantsOf(registered)).toEqual([registered.tenantId]);
    // Neither does the audit log tell whether the email has an account.
    const events = (await call(owner, 'GET', '/auth/audit?limit=2')).body.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['member.invite', 'member.invite']);
    expect(Object.keys(events[0].details).sort()).toEqual(Object.keys(events[1].details).sort());
  });

  it('the invitee lists it, accepts it once (200 {tenant_id, role}) and then sees the tenant', async () => {
    const [owner, invitee] = await Promise.all([up(), up()]);
    const sent = await invite(owner, invitee.email, 'viewer');
    const listed = await call(invitee, 'GET', '/auth/invitations');
    expect(listed.status).toBe(200);
    expect(listed.body.invitations).toEqual([
      { ...sent.body, tenant_id: owner.tenantId, tenant_name: expect.any(String), created_at: new Date(nowMs).toISOString() },
    ]);
    const accepted = await call(invitee, 'POST', `/auth/invitations/${sent.body.invitation_id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ tenant_id: owner.tenantId, role: 'viewer' });
    expect(await tenantsOf(invitee)).toEqual([invitee.tenantId, owner.tenantId]);
    expect((await call(invitee, 'GET', '/auth/members', undefined, {}, owner.tenantId)).status).toBe(200);
    expect(await lastEvent(owner)).toMatchObject({
      type: 'member.invite_accept',
      actor: { user_id: invitee.userId },
      target: { type: 'invitation', id: sent.body.invitation_id },
    });
    const again = await call(invitee, 'POST', `/auth/invitations/${sent.body.invitation_id}/accept`);
    expect(again.status).toBe(409);
    expect(await pending(invitee)).toEqual([]);
    // Inviting a member is a 409: membership is visible to the tenant anyway.
    expect((await invite(owner, invitee.email, 'member')).status).toBe(409);
  });

  it('only the invited account may accept or decline: anyone else gets 404, as for an unknown id', async () => {
    const [owner, invitee, intruder] = await Promise.all([up(), up(), up()]);
    const sent = await invite(owner, invitee.email, 'member');
    for (const verb of ['accept', 'decline']) {
      expect((await call(intruder, 'POST', `/auth/invitations/${sent.body.invitation_id}/${verb}`)).status).toBe(404);
      expect((await call(owner, 'POST', `/auth/invitations/${sent.body.invitation_id}/${verb}`)).status).toBe(404);
      expect((await call(invitee, 'POST', `/auth/invitations/${randomUUID()}/${verb}`)).status).toBe(404);
      expect((await call(invitee, 'POST', `/auth/invitations/not-an-id/${verb}`)).status).toBe(400);
    }
    expect(await pending(intruder)).toEqual([]);
    expect(await memberIds(owner)).toEqual([owner.userId]);
    expect((await pending(invitee)).map((i) => i.invitation_id)).toEqual([sent.body.invitation_id]);
  });

  it('declining ends it (then accept answers 409) and is audited', async () => {
    const [owner, invitee] = await Promise.all([up(), up()]);
    const sent = await invite(owner, invitee.email, 'member');
    const declined = await call(invitee, 'POST', `/auth/invitations/${sent.body.invitation_id}/decline`);
    expect(declined.status).toBe(200);
    expect(declined.body).toEqual({ invitation_id: sent.body.invitation_id, status: 'declined' });
    expect(await lastEvent(owner)).toMatchObject({ type: 'member.invite_decline', actor: { user_id: invitee.userId } });
    expect((await call(invitee, 'POST', `/auth/invitations/${sent.body.invitation_id}/accept`)).status).toBe(409);
    expect(await memberIds(owner)).toEqual([owner.userId]);
  });

  it('inviting a pending email again keeps one invitation (same id, new role and expiry); it expires after INVITATION_TTL_SECONDS', async () => {
    const [owner, invitee] = await Promise.all([up(), up()]);
    const first = await invite(owner, invitee.email, 'member');
    nowMs += 60_000;
    const second = await invite(owner, invitee.email, 'viewer');
    expect(second.body).toMatchObject({
      invitation_id: first.body.invitation_id,
      role: 'viewer',
      expires_at: new Date(nowMs + TTL_SECONDS * 1000).toISOString(),
    });
    expect((await pending(invitee)).map((i) => [i.invitation_id, i.role])).toEqual([[first.body.invitation_id, 'viewer']]);
    nowMs += TTL_SECONDS * 1000;
    expect(await pending(invitee)).toEqual([]);
    const late = await call(invitee, 'POST', `/auth/invitations/${first.body.invitation_id}/accept`);
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/expired/);
    expect(await memberIds(owner)).toEqual([owner.userId]);
  });

  it('answers 400 for a bad role or email, 401 without a token, 403 for members and viewers', async () => {
    const [owner, member] = await Promise.all([up(), up()]);
    await addToTenant(server.url, owner, member, 'member');
    expect((await invite(owner, 'x@example.test', 'superuser')).status).toBe(400);
    expect((await invite(owner, 'not an email', 'member')).status).toBe(400);
    expect((await http(server.url, 'POST', '/auth/members', { body: { email: 'x@example.test', role: 'member' } })).status).toBe(401);
    expect((await http(server.url, 'GET', '/auth/invitations')).status).toBe(401);
    expect((await call(member, 'POST', '/auth/members', { email: 'x@example.test', role: 'viewer' }, {}, owner.tenantId)).status).toBe(403);
  });

  it('owner and admin invitations need a members.promote step-up token; only owners invite owners', async () => {
    const [owner, admin, invitee] = await Promise.all([up(), up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    const bare = await invite(owner, invitee.email, 'admin');
    expect(bare.status).toBe(403);
    expect(bare.body.code).toBe('STEP_UP_REQUIRED');
    const wrongAction = { 'x-step-up-token': await stepUpToken(server.url, owner, 'data.export') };
    expect((await invite(owner, invitee.email, 'admin', wrongAction)).body.code).toBe('STEP_UP_REQUIRED');
    const someoneElses = await promote(admin, owner.tenantId);
    expect((await invite(owner, invitee.email, 'admin', someoneElses)).body.code).toBe('STEP_UP_REQUIRED');
    expect((await invite(owner, invitee.email, 'admin', await promote(owner))).status).toBe(202);
    const asAdmin = { ...bearer(admin.accessToken, owner.tenantId), ...someoneElses };
    expect(
      (await http(server.url, 'POST', '/auth/members', { headers: asAdmin, body: { email: invitee.email, role: 'owner' } })).status,
    ).toBe(403);
    expect(
      (await http(server.url, 'POST', '/auth/members', { headers: asAdmin, body: { email: invitee.email, role: 'admin' } })).status,
    ).toBe(202);
  });
});

describe('invitation budgets', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ INVITATION_RATE_LIMIT: '3', INVITATION_TENANT_RATE_LIMIT: '5' });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('counts concurrent invitations before acting: per user, then per tenant; 429 with Retry-After beyond', async () => {
    const [owner, admin] = await Promise.all([signUp(limited.url), signUp(limited.url)]);
    await addToTenant(limited.url, owner, admin, 'admin'); // one of the owner's 3 and the tenant's 5
    const burst = (u: SignedUpUser, n: number) =>
      Promise.all(
        Array.from({ length: n }, () =>
          http(limited.url, 'POST', '/auth/members', {
            headers: bearer(u.accessToken, owner.tenantId),
            body: { email: `x-${randomUUID()}@example.test`, role: 'viewer' },
          }),
        ),
      );
    const fromOwner = await burst(owner, 8);
    expect(fromOwner.filter((r) => r.status === 202)).toHaveLength(2);
    const refused = fromOwner.filter((r) => r.status === 429);
    expect(refused).toHaveLength(6);
    expect(refused[0]!.body.code).toBe('RATE_LIMITED');
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    // The tenant has used 3 of 5: another of its users gets the last 2.
    const fromAdmin = await burst(admin, 4);
    expect(fromAdmin.map((r) => r.status).sort()).toEqual([202, 202, 429, 429]);
  });
});

describe('role changes', () => {
  let owner: SignedUpUser, admin: SignedUpUser, member: SignedUpUser;
  beforeAll(async () => {
    [owner, admin, member] = await Promise.all([up(), up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    await addToTenant(server.url, owner, member, 'member');
  });
  const put = (actor: SignedUpUser, target: SignedUpUser, role: string, extra: Record<string, string> = {}) =>
    call(actor, 'PUT', `/auth/members/${target.userId}`, { role }, extra, owner.tenantId);

  it('making someone admin or owner needs a members.promote step-up token of the actor; a demotion does not', async () => {
    for (const role of ['admin', 'owner']) {
      const bare = await put(owner, member, role);
      expect(bare.status).toBe(403);
      expect(bare.body.code).toBe('STEP_UP_REQUIRED');
    }
    expect((await put(owner, member, 'admin', { 'x-step-up-token': await stepUpToken(server.url, owner, 'members.remove') })).status).toBe(
      403,
    );
    expect((await put(owner, member, 'admin', await promote(admin, owner.tenantId))).status).toBe(403);
    const promoted = await put(owner, member, 'admin', await promote(owner));
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ user_id: member.userId, role: 'admin' });
    expect(await lastEvent(owner)).toMatchObject({
      type: 'member.role_change',
      actor: { user_id: owner.userId },
      details: { from: 'member', to: 'admin' },
    });
    expect((await put(owner, member, 'member')).status).toBe(200);
  });

  it('admins cannot grant owner or change an owner (403); members cannot change roles (403)', async () => {
    const token = await promote(admin, owner.tenantId);
    expect((await put(admin, member, 'owner', token)).status).toBe(403);
    expect((await put(admin, owner, 'member', token)).status).toBe(403);
    expect((await put(member, member, 'admin', await promote(member, owner.tenantId))).status).toBe(403);
  });

  it('the last owner cannot be demoted (409); unknown members 404; malformed ids 400', async () => {
    const last = await put(owner, owner, 'admin');
    expect(last.status).toBe(409);
    expect((await call(owner, 'PUT', `/auth/members/${randomUUID()}`, { role: 'viewer' })).status).toBe(404);
    expect((await call(owner, 'PUT', '/auth/members/nope', { role: 'viewer' })).status).toBe(400);
  });
});

describe('removing members', () => {
  it('an admin removes a member with a members.remove step-up token: access ends at once, the member’s keys are revoked, others’ stay', async () => {
    const [owner, admin, member] = await Promise.all([up(), up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    await addToTenant(server.url, owner, member, 'member');
    const memberKey = (await call(member, 'POST', '/api-keys', { name: 'mine', scopes: ['usage:read'] }, {}, owner.tenantId)).body;
    const ownerKey = (await call(owner, 'POST', '/api-keys', { name: 'tenant', scopes: ['usage:read'] })).body;
    const url = `/auth/members/${member.userId}`;

    const bare = await call(admin, 'DELETE', url, undefined, {}, owner.tenantId);
    expect(bare.status).toBe(403);
    expect(bare.body.code).toBe('STEP_UP_REQUIRED');
    expect((await call(admin, 'DELETE', url, undefined, await promote(admin, owner.tenantId), owner.tenantId)).status).toBe(403);

    const removed = await call(admin, 'DELETE', url, undefined, await removal(admin, owner.tenantId), owner.tenantId);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ user_id: member.userId, removed: true, revoked_api_keys: [memberKey.key_id] });
    expect(await memberIds(owner)).toEqual([owner.userId, admin.userId]);
    expect((await call(member, 'GET', '/auth/members', undefined, {}, owner.tenantId)).status).toBe(403);
    expect(await tenantsOf(member)).toEqual([member.tenantId]);
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: { 'x-api-key': memberKey.secret } })).status).toBe(401);
    expect((await http(server.url, 'GET', '/api-keys/current', { headers: { 'x-api-key': ownerKey.secret } })).status).toBe(200);
    expect(await lastEvent(owner)).toMatchObject({
      type: 'member.remove',
      actor: { user_id: admin.userId },
      target: { type: 'user', id: member.userId },
      details: { role: 'member', self: false, revoked_api_keys: 1 },
    });
    expect((await call(admin, 'DELETE', url, undefined, await removal(admin, owner.tenantId), owner.tenantId)).status).toBe(404);
  });

  it('members may leave but not remove others; admins may not remove owners; the last owner cannot go (409)', async () => {
    const [owner, admin, member, other] = await Promise.all([up(), up(), up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    await addToTenant(server.url, owner, member, 'member');
    await addToTenant(server.url, owner, other, 'member');
    const del = async (actor: SignedUpUser, target: SignedUpUser) =>
      call(actor, 'DELETE', `/auth/members/${target.userId}`, undefined, await removal(actor, owner.tenantId), owner.tenantId);
    expect((await del(member, other)).status).toBe(403);
    expect((await del(admin, owner)).status).toBe(403);
    const last = await del(owner, owner);
    expect(last.status).toBe(409);
    expect(last.body.code).toBe('CONFLICT');
    const left = await del(member, member);
    expect(left.status).toBe(200);
    expect(left.body).toMatchObject({ user_id: member.userId, removed: true });
    expect(await memberIds(owner)).toEqual([owner.userId, admin.userId, other.userId]);
  });
});
