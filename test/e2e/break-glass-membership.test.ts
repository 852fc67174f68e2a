import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, stepUpToken, type SignedUpUser } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * A break-glass grant belongs to the membership it was requested under: a role change or a removal
 * ends the holder's pending and approved requests in that tenant, and a grant requested before the
 * membership's current role was set never counts, even if ending it failed.
 */
let nowMs = Date.now();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ ACCESS_TOKEN_TTL_SECONDS: '86400', BREAK_GLASS_MAX_MINUTES: '240' }, { clock: () => nowMs });
});
afterAll(async () => {
  await server?.close();
});

const up = () => signUp(server.url);
const call = (u: SignedUpUser, method: string, url: string, tenantId: string, body?: unknown, extra: Record<string, string> = {}) =>
  http(server.url, method, url, { headers: { ...bearer(u.accessToken, tenantId), ...extra }, body });
const writeKey = (u: SignedUpUser, tenantId: string) =>
  call(u, 'POST', '/api-keys', tenantId, { name: 'after the grant', scopes: ['memories:write'] });
const requestsOf = async (owner: SignedUpUser) =>
  (await call(owner, 'GET', '/auth/break-glass', owner.tenantId)).body.requests as Array<{
    id: string;
    status: string;
    expires_at: string | null;
    decided_by: string | null;
  }>;
const auditTypes = async (owner: SignedUpUser) =>
  (await call(owner, 'GET', '/auth/audit?limit=50', owner.tenantId)).body.events as Array<{
    type: string;
    details: Record<string, unknown>;
  }>;

/** A tenant with a member who holds an approved 4-hour grant and has a second request pending. */
async function holderWithGrant() {
  const [owner, holder] = await Promise.all([up(), up()]);
  await addToTenant(server.url, owner, holder, 'member');
  nowMs += 1_000;
  const granted = await call(holder, 'POST', '/auth/break-glass/request', owner.tenantId, { reason: 'incident', duration_minutes: 240 });
  expect((await call(owner, 'POST', `/auth/break-glass/${granted.body.id}/approve`, owner.tenantId)).status).toBe(200);
  const pending = await call(holder, 'POST', '/auth/break-glass/request', owner.tenantId, { reason: 'another', duration_minutes: 30 });
  expect(pending.status).toBe(201);
  expect((await call(holder, 'GET', '/auth/audit', owner.tenantId)).status).toBe(200); // the grant is live
  nowMs += 1_000;
  return { owner, holder, grantId: granted.body.id as string, pendingId: pending.body.id as string };
}

describe('a break-glass grant ends with the membership it was requested under', () => {
  it('demoted to viewer: the grant ends at once (no write-scoped key, no audit log) and the pending request can no longer be approved', async () => {
    const { owner, holder, grantId, pendingId } = await holderWithGrant();
    expect((await call(owner, 'PUT', `/auth/members/${holder.userId}`, owner.tenantId, { role: 'viewer' })).status).toBe(200);

    expect((await writeKey(holder, owner.tenantId)).status).toBe(403);
    expect((await call(holder, 'GET', '/auth/audit', owner.tenantId)).status).toBe(403);
    expect((await call(owner, 'POST', `/auth/break-glass/${pendingId}/approve`, owner.tenantId)).status).toBe(409);

    const requests = await requestsOf(owner);
    expect(requests.find((r) => r.id === grantId)).toMatchObject({ status: 'expired', expires_at: new Date(nowMs).toISOString() });
    expect(requests.find((r) => r.id === pendingId)).toMatchObject({ status: 'denied', decided_by: owner.userId });
    const ended = (await auditTypes(owner)).filter((e) => e.type === 'break_glass.revoke');
    expect(ended.map((e) => e.details).sort((a, b) => String(a.previous_status).localeCompare(String(b.previous_status)))).toEqual([
      { requester_id: holder.userId, reason: 'role_change', previous_status: 'approved' },
      { requester_id: holder.userId, reason: 'role_change', previous_status: 'pending' },
    ]);
  });

  it('a promotion ends the grant too: it was decided for the role the holder had', async () => {
    const { owner, holder, grantId } = await holderWithGrant();
    const promote = { 'x-step-up-token': await stepUpToken(server.url, owner, 'members.promote') };
    expect((await call(owner, 'PUT', `/auth/members/${holder.userId}`, owner.tenantId, { role: 'admin' }, promote)).status).toBe(200);
    expect((await requestsOf(owner)).find((r) => r.id === grantId)?.status).toBe('expired');
  });

  it('removed and invited again as viewer: the old grant gives nothing', async () => {
    const { owner, holder, grantId } = await holderWithGrant();
    const removal = { 'x-step-up-token': await stepUpToken(server.url, owner, 'members.remove') };
    expect((await call(owner, 'DELETE', `/auth/members/${holder.userId}`, owner.tenantId, undefined, removal)).status).toBe(200);
    nowMs += 1_000;
    await addToTenant(server.url, owner, holder, 'viewer');

    expect((await call(holder, 'GET', '/auth/audit', owner.tenantId)).status).toBe(403);
    expect((await writeKey(holder, owner.tenantId)).status).toBe(403);
    expect((await requestsOf(owner)).find((r) => r.id === grantId)?.status).toBe('expired');
    expect((await auditTypes(owner)).find((e) => e.type === 'break_glass.revoke')?.details).toMatchObject({ reason: 'member_removed' });
  });

  it('a grant requested before the membership’s current role was set never counts, even when nothing ended it', async () => {
    const { owner, holder } = await holderWithGrant();
    // The port alone, as if ending the grants had failed after the role change was written.
    const changed = await server.services.ports.tenants.changeRole(owner.tenantId, holder.userId, {
      from: 'member',
      to: 'viewer',
      at: new Date(nowMs).toISOString(),
    });
    expect(changed.ok).toBe(true);
    expect((await call(holder, 'GET', '/auth/audit', owner.tenantId)).status).toBe(403);
    expect((await writeKey(holder, owner.tenantId)).status).toBe(403);

    // Removed through the port and invited again: the membership is new, the grant older.
    const [other, again] = [await up(), await up()];
    await addToTenant(server.url, other, again, 'member');
    nowMs += 1_000;
    const req = await call(again, 'POST', '/auth/break-glass/request', other.tenantId, { reason: 'x', duration_minutes: 60 });
    expect((await call(other, 'POST', `/auth/break-glass/${req.body.id}/approve`, other.tenantId)).status).toBe(200);
    expect((await server.services.ports.tenants.removeMember(other.tenantId, again.userId, 'member')).ok).toBe(true);
    nowMs += 1_000;
    await addToTenant(server.url, other, again, 'viewer');
    expect((await call(again, 'GET', '/auth/audit', other.tenantId)).status).toBe(403);
  });
});
