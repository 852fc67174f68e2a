import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, stepUpToken, type SignedUpUser } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Removing a member revokes the keys whose working secret they hold: those they created and nobody
 * has rotated since, and those they rotated (a rotation hands its actor the new secret), whoever
 * created them.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ ACCESS_TOKEN_TTL_SECONDS: '86400' });
});
afterAll(async () => {
  await server?.close();
});

const call = (u: SignedUpUser, tenantId: string, method: string, url: string, extra: Record<string, string> = {}, body?: unknown) =>
  http(server.url, method, url, { headers: { ...bearer(u.accessToken, tenantId), ...extra }, body });
const works = async (secret: string) => (await http(server.url, 'GET', '/api-keys/current', { headers: { 'x-api-key': secret } })).status;

async function remove(actor: SignedUpUser, tenantId: string, target: SignedUpUser) {
  const token = await stepUpToken(server.url, actor, 'members.remove', tenantId);
  const res = await call(actor, tenantId, 'DELETE', `/auth/members/${target.userId}`, { 'x-step-up-token': token });
  expect(res.status, res.text).toBe(200);
  return res.body as { revoked_api_keys: string[] };
}

describe('removing a member revokes the keys whose current secret they received', () => {
  it('an admin who rotated a member’s key, once removed, no longer has a working secret (the reviewer’s case)', async () => {
    const [owner, admin, member] = await Promise.all([signUp(server.url), signUp(server.url), signUp(server.url)]);
    const tenant = owner.tenantId;
    await addToTenant(server.url, owner, admin, 'admin');
    await addToTenant(server.url, owner, member, 'member');
    const created = await call(member, tenant, 'POST', '/api-keys', {}, { name: 'worker', scopes: ['memories:read'] });
    expect(created.status).toBe(201);
    const rotated = await call(admin, tenant, 'POST', `/api-keys/${created.body.key_id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(await works(rotated.body.secret)).toBe(200);

    const removed = await remove(owner, tenant, admin);
    expect(removed.revoked_api_keys).toEqual([created.body.key_id]);
    expect(await works(rotated.body.secret)).toBe(401);
    const audit = (await call(owner, tenant, 'GET', '/auth/audit?limit=2')).body.events;
    expect(audit.map((e: { type: string }) => e.type)).toEqual(['member.remove', 'api_key.revoke']);
    expect(audit[1]).toMatchObject({ target: { type: 'api_key', id: created.body.key_id }, details: { reason: 'secret_holder_removed' } });
  });

  it('a key its creator no longer holds (an admin rotated it) survives the creator’s removal; the keys they hold do not', async () => {
    const [owner, admin, member] = await Promise.all([signUp(server.url), signUp(server.url), signUp(server.url)]);
    const tenant = owner.tenantId;
    await addToTenant(server.url, owner, admin, 'admin');
    await addToTenant(server.url, owner, member, 'member');
    const handedOver = (await call(member, tenant, 'POST', '/api-keys', {}, { name: 'handed over', scopes: ['usage:read'] })).body;
    const kept = (await call(member, tenant, 'POST', '/api-keys', {}, { name: 'kept', scopes: ['usage:read'] })).body;
    const adminSecret = (await call(admin, tenant, 'POST', `/api-keys/${handedOver.key_id}/rotate`)).body.secret;
    const memberRotated = (await call(member, tenant, 'POST', `/api-keys/${kept.key_id}/rotate`)).body.secret;

    const removed = await remove(admin, tenant, member);
    expect(removed.revoked_api_keys).toEqual([kept.key_id]);
    expect(await works(memberRotated)).toBe(401);
    expect(await works(handedOver.secret)).toBe(401); // the member's copy died with the rotation
    expect(await works(adminSecret)).toBe(200);
  });
});
