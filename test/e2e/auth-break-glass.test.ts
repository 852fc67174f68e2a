import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let nowMs = Date.now();
let server: TestServer;
/** owner and admin of one tenant, a member and a viewer in it, and the owner of another tenant. */
let owner: SignedUpUser, admin: SignedUpUser, member: SignedUpUser, viewer: SignedUpUser, stranger: SignedUpUser;
let tenantId: string;

const as = (u: SignedUpUser) => bearer(u.accessToken, tenantId);
const request = (u: SignedUpUser, body: Record<string, unknown>) =>
  http(server.url, 'POST', '/auth/break-glass/request', { headers: as(u), body });
const decide = (u: SignedUpUser, id: string, verb: 'approve' | 'deny', headers = as(u)) =>
  http(server.url, 'POST', `/auth/break-glass/${id}/${verb}`, { headers });
const list = (u: SignedUpUser) => http(server.url, 'GET', '/auth/break-glass', { headers: as(u) });
const readAudit = (u: SignedUpUser) => http(server.url, 'GET', '/auth/audit', { headers: as(u) });

beforeAll(async () => {
  // Long-lived access tokens: the clock jumps below must end the grant, not the tokens.
  server = await startTestServer({ BREAK_GLASS_MAX_MINUTES: '60', ACCESS_TOKEN_TTL_SECONDS: '86400' }, { clock: () => nowMs });
});
// Fresh people and tenant per test: grants and requests one test leaves behind never reach another.
beforeEach(async () => {
  const signUps = () => signUp(server.url);
  [owner, admin, member, viewer, stranger] = await Promise.all([signUps(), signUps(), signUps(), signUps(), signUps()]);
  tenantId = owner.tenantId;
  for (const [u, role] of [
    [admin, 'admin'],
    [member, 'member'],
    [viewer, 'viewer'],
  ] as const) {
    await addToTenant(server.url, owner, u, role);
  }
});
afterAll(async () => {
  await server?.close();
});

describe('break-glass lifecycle', () => {
  it('request → 201 pending; approval by another owner grants admin permissions until the grant expires by itself', async () => {
    expect((await readAudit(member)).status).toBe(403); // members cannot read the audit log
    const created = await request(member, { reason: 'incident 42: customer data restore', duration_minutes: 30 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      tenant_id: tenantId,
      requester_id: member.userId,
      reason: 'incident 42: customer data restore',
      duration_minutes: 30,
      status: 'pending',
      decided_at: null,
      decided_by: null,
      expires_at: null,
    });
    expect((await readAudit(member)).status).toBe(403); // pending grants nothing

    const approved = await decide(owner, created.body.id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', decided_by: owner.userId });
    expect(Date.parse(approved.body.expires_at) - Date.parse(approved.body.decided_at)).toBe(30 * 60_000);

    expect((await readAudit(member)).status).toBe(200); // elevated to the break-glass role
    nowMs += 29 * 60_000;
    expect((await readAudit(member)).status).toBe(200);
    nowMs += 61_000;
    expect((await readAudit(member)).status).toBe(403); // ended by itself at expiry

    const listed = await list(owner);
    expect(listed.body.requests.find((r: { id: string }) => r.id === created.body.id)).toMatchObject({ status: 'expired' });
    const types = (await readAudit(owner)).body.events.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['break_glass.request', 'break_glass.approve', 'break_glass.expire']));
  });

  it('refuses self-approval (403), a second decision (409) and decisions by members (403)', async () => {
    const own = await request(admin, { reason: 'admin needs it', duration_minutes: 10 });
    expect(own.status).toBe(201);
    const self = await decide(admin, own.body.id, 'approve');
    expect(self.status).toBe(403);
    expect(self.body.code).toBe('FORBIDDEN');
    expect((await decide(admin, own.body.id, 'deny')).status).toBe(403);
    expect((await decide(member, own.body.id, 'approve')).status).toBe(403);

    const denied = await decide(owner, own.body.id, 'deny');
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'denied', decided_by: owner.userId, expires_at: null });
    const again = await decide(owner, own.body.id, 'approve');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
  });

  it('a grant does not let its holder approve other requests', async () => {
    const first = await request(member, { reason: 'first', duration_minutes: 10 });
    await decide(admin, first.body.id, 'approve');
    const second = await request(admin, { reason: 'second', duration_minutes: 5 });
    // The member now holds admin permissions through break-glass, but approving stays with real owners/admins.
    const res = await decide(member, second.body.id, 'approve');
    expect(res.status).toBe(403);
    expect((await decide(owner, second.body.id, 'deny')).status).toBe(200);
    nowMs += 11 * 60_000;
  });

  it('validates the body: reason required, duration 1..BREAK_GLASS_MAX_MINUTES', async () => {
    for (const body of [
      { duration_minutes: 10 },
      { reason: '  ', duration_minutes: 10 },
      { reason: 'x', duration_minutes: 0 },
      { reason: 'x', duration_minutes: 61 },
      { reason: 'x', duration_minutes: 1.5 },
    ]) {
      const res = await request(member, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('viewers may not request (403); unauthenticated callers get 401', async () => {
    expect((await request(viewer, { reason: 'x', duration_minutes: 5 })).status).toBe(403);
    expect((await http(server.url, 'POST', '/auth/break-glass/request', { body: { reason: 'x', duration_minutes: 5 } })).status).toBe(401);
    expect((await http(server.url, 'GET', '/auth/break-glass')).status).toBe(401);
  });

  it('answers 404 for an unknown id and for another tenant’s request, 400 for a malformed id', async () => {
    const mine = await request(member, { reason: 'isolation', duration_minutes: 5 });
    expect((await decide(owner, '6f1c2b9e-0000-4000-8000-000000000000', 'approve')).status).toBe(404);
    // The owner of another tenant, acting in their own tenant, cannot see or decide this request.
    expect((await decide(stranger, mine.body.id, 'approve', bearer(stranger.accessToken))).status).toBe(404);
    expect((await decide(stranger, mine.body.id, 'deny', bearer(stranger.accessToken))).status).toBe(404);
    expect((await http(server.url, 'GET', '/auth/break-glass', { headers: bearer(stranger.accessToken) })).body.requests).toEqual([]);
    expect((await decide(owner, 'not-a-uuid', 'approve')).status).toBe(400);
    expect((await decide(owner, mine.body.id, 'approve')).status).toBe(200);
  });

  it('lists every request to approvers and only their own to others', async () => {
    expect((await request(member, { reason: 'listed', duration_minutes: 5 })).status).toBe(201);
    expect((await request(admin, { reason: 'listed too', duration_minutes: 5 })).status).toBe(201);
    const all = (await list(owner)).body.requests as Array<{ requester_id: string }>;
    expect(new Set(all.map((r) => r.requester_id))).toEqual(new Set([member.userId, admin.userId]));
    const mine = (await list(member)).body.requests as Array<{ requester_id: string }>;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((r) => r.requester_id === member.userId)).toBe(true);
  });
});
