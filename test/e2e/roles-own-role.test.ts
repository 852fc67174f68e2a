import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, stepUpToken, type SignedUpUser } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Role changes, membership and other people's keys follow the actor's own base role: a break-glass
 * grant (admin permissions for a while) never lets its holder change them; members manage their own
 * keys only, owners and admins every key of the tenant.
 */
let server: TestServer;
let owner: SignedUpUser, admin: SignedUpUser, member: SignedUpUser, otherMember: SignedUpUser, holder: SignedUpUser;
let tenantId: string;

const as = (u: SignedUpUser) => bearer(u.accessToken, tenantId);
const call = (u: SignedUpUser, method: string, url: string, body?: unknown) => http(server.url, method, url, { headers: as(u), body });
const roleOf = async (u: SignedUpUser) =>
  (await call(owner, 'GET', '/auth/members')).body.members.find((m: { user_id: string }) => m.user_id === u.userId)?.role;

async function newKey(u: SignedUpUser): Promise<{ key_id: string; secret: string }> {
  const res = await call(u, 'POST', '/api-keys', { name: `key of ${u.email}`, scopes: ['usage:read'] });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

beforeAll(async () => {
  server = await startTestServer({ ACCESS_TOKEN_TTL_SECONDS: '86400' });
  const up = () => signUp(server.url);
  [owner, admin, member, otherMember, holder] = await Promise.all([up(), up(), up(), up(), up()]);
  tenantId = owner.tenantId;
  await addToTenant(server.url, owner, admin, 'admin');
  await addToTenant(server.url, owner, member, 'member');
  await addToTenant(server.url, owner, otherMember, 'member');
  await addToTenant(server.url, owner, holder, 'member');
  const requested = await call(holder, 'POST', '/auth/break-glass/request', { reason: 'incident 7', duration_minutes: 5 });
  expect(requested.status).toBe(201);
  expect((await call(owner, 'POST', `/auth/break-glass/${requested.body.id}/approve`)).status).toBe(200);
});
afterAll(async () => {
  await server?.close();
});

describe('a break-glass grant never becomes a role', () => {
  it('still serves what the grant is for: the audit log and its verification', async () => {
    expect((await call(holder, 'GET', '/auth/audit')).status).toBe(200);
    expect((await call(holder, 'GET', '/auth/audit/verify')).status).toBe(200);
    expect((await call(otherMember, 'GET', '/auth/audit')).status).toBe(403); // the same role without a grant
  });

  it('refuses role changes for the holder and for others (403), and changes nothing', async () => {
    for (const target of [holder, otherMember]) {
      for (const role of ['admin', 'owner', 'viewer']) {
        const res = await call(holder, 'PUT', `/auth/members/${target.userId}`, { role });
        expect(res.status, `${role} for ${target === holder ? 'self' : 'other'}`).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
      }
    }
    expect(await roleOf(holder)).toBe('member');
    expect(await roleOf(otherMember)).toBe('member');
  });

  it('refuses to invite or remove members (403), even with a step-up token', async () => {
    const res = await call(holder, 'POST', '/auth/members', { email: `new-${Date.now()}@example.test`, role: 'member' });
    expect(res.status).toBe(403);
    const token = await stepUpToken(server.url, holder, 'members.remove', tenantId);
    const removed = await http(server.url, 'DELETE', `/auth/members/${otherMember.userId}`, {
      headers: { ...as(holder), 'x-step-up-token': token },
    });
    expect(removed.status).toBe(403);
    expect(removed.body.code).toBe('FORBIDDEN');
    expect(await roleOf(otherMember)).toBe('member');
  });

  it('refuses to decide break-glass requests (403)', async () => {
    const requested = await call(otherMember, 'POST', '/auth/break-glass/request', { reason: 'self-service', duration_minutes: 5 });
    expect(requested.status).toBe(201);
    expect((await call(holder, 'POST', `/auth/break-glass/${requested.body.id}/approve`)).status).toBe(403);
  });
});

describe('API keys: members (and grant holders) manage their own keys; owners and admins every key', () => {
  const cases: Array<[string, () => SignedUpUser, () => SignedUpUser, number]> = [
    ['owner → member’s key', () => owner, () => member, 200],
    ['admin → owner’s key', () => admin, () => owner, 200],
    ['member → own key', () => member, () => member, 200],
    ['member → owner’s key', () => member, () => owner, 403],
    ['member → another member’s key', () => member, () => otherMember, 403],
    ['grant holder → own key', () => holder, () => holder, 200],
    ['grant holder → owner’s key', () => holder, () => owner, 403],
    ['grant holder → a member’s key', () => holder, () => member, 403],
  ];

  it.each(cases.map(([label, ...rest]) => [`${label}: rotate and revoke answer ${rest[2]}`, ...rest] as const))(
    '%s',
    async (_, actorOf, creatorOf, expected) => {
      const actor = actorOf();
      const key = await newKey(creatorOf());
      const rotated = await call(actor, 'POST', `/api-keys/${key.key_id}/rotate`);
      expect(rotated.status).toBe(expected);
      if (expected === 403) {
        expect(rotated.body).toMatchObject({ code: 'FORBIDDEN' });
        expect(rotated.body.secret).toBeUndefined();
        // The key is untouched: the creator's secret still works.
        expect((await http(server.url, 'GET', '/api-keys/current', { headers: { 'x-api-key': key.secret } })).status).toBe(200);
      } else {
        expect(rotated.body.secret).toMatch(/^tmk_/);
      }
      const revoked = await call(actor, 'DELETE', `/api-keys/${key.key_id}`);
      expect(revoked.status).toBe(expected);
      const listed = (await call(owner, 'GET', '/api-keys')).body.keys.find((k: { key_id: string }) => k.key_id === key.key_id);
      expect(listed.status).toBe(expected === 200 ? 'revoked' : 'active');
    },
  );
});

describe('a break-glass grant never mints a lasting credential', () => {
  // A member whose grant outlives their demotion to viewer: the grant lends admin permissions (memory
  // and knowledge writes among them) for minutes; an API key made with them would keep them for good.
  let demoted: SignedUpUser;
  beforeAll(async () => {
    demoted = await signUp(server.url);
    await addToTenant(server.url, owner, demoted, 'member');
    const requested = await call(demoted, 'POST', '/auth/break-glass/request', { reason: 'incident 8', duration_minutes: 5 });
    expect(requested.status).toBe(201);
    expect((await call(owner, 'POST', `/auth/break-glass/${requested.body.id}/approve`)).status).toBe(200);
    expect((await call(owner, 'PUT', `/auth/members/${demoted.userId}`, { role: 'viewer' })).status).toBe(200);
  });

  it('a viewer whose grant was approved may not create an API key (403), whatever its scopes, and none is made', async () => {
    // The demotion ended the grant (test/e2e/break-glass-membership.test.ts); key creation follows the
    // own role whether or not a grant is live (a live grant on a viewer: test/unit/api-keys-service.test.ts).
    expect((await call(demoted, 'GET', '/auth/audit')).status).toBe(403);
    const keysBefore = (await call(owner, 'GET', '/api-keys')).body.keys.length;
    for (const scopes of [['memories:write', 'knowledge:write'], ['memories:read']]) {
      const res = await call(demoted, 'POST', '/api-keys', { name: 'lasting', scopes });
      expect(res.status, `${scopes.join(',')}: ${res.text}`).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN' });
      expect(res.body.secret).toBeUndefined();
    }
    expect((await call(owner, 'GET', '/api-keys')).body.keys).toHaveLength(keysBefore);
  });
});
