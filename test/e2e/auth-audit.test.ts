import path from 'node:path';
import Database from 'libsql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashAuditEvent } from '../../server/services/audit.js';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let sql: InstanceType<typeof Database>;
beforeAll(async () => {
  server = await startTestServer();
  // A second connection to the same database file: what an attacker with disk access could do.
  sql = new Database(path.join(server.dataDir, 'tenant-memory.db'));
});
afterAll(async () => {
  sql?.close();
  await server?.close();
});

const audit = (u: SignedUpUser, query = '') => http(server.url, 'GET', `/auth/audit${query}`, { headers: bearer(u.accessToken) });
const verify = (u: SignedUpUser) => http(server.url, 'GET', '/auth/audit/verify', { headers: bearer(u.accessToken) });

/** A user whose tenant has `n` more events (tenant.create, user.signup, auth.login, then n-3 logins). */
async function userWithEvents(n: number): Promise<SignedUpUser> {
  const u = await signUp(server.url);
  for (let i = 3; i < n; i++) {
    await http(server.url, 'POST', '/auth/login', { body: { email: u.email, password: u.password } });
  }
  return u;
}

describe('GET /auth/audit', () => {
  it('lists the tenant’s events newest first, with paging and the chain fields', async () => {
    const u = await userWithEvents(5);
    const all = await audit(u);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(5);
    expect(all.body.events.map((e: { seq: number }) => e.seq)).toEqual([5, 4, 3, 2, 1]);
    expect(all.body.events.map((e: { type: string }) => e.type).reverse()).toEqual([
      'tenant.create',
      'user.signup',
      'auth.login',
      'auth.login',
      'auth.login',
    ]);
    const first = all.body.events[4];
    expect(first).toEqual({
      id: expect.any(String),
      tenant_id: u.tenantId,
      seq: 1,
      type: 'tenant.create',
      actor: { user_id: u.userId, key_id: null },
      ip: expect.any(String),
      user_agent: expect.any(String),
      target: { type: 'tenant', id: u.tenantId },
      details: expect.objectContaining({ plan: 'free' }),
      created_at: expect.any(String),
      prev_hash: '0'.repeat(64),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(all.body.events[3].prev_hash).toBe(first.hash);

    const page = await audit(u, '?limit=2&offset=1');
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.body.events.map((e: { seq: number }) => e.seq)).toEqual([4, 3]);
  });

  it('validates paging (400) and needs audit:read (403 for members, 401 without a token)', async () => {
    const owner = await signUp(server.url);
    expect((await audit(owner, '?limit=0')).status).toBe(400);
    expect((await audit(owner, '?limit=500')).status).toBe(400);
    expect((await audit(owner, '?offset=-1')).status).toBe(400);
    const member = await signUp(server.url);
    await addToTenant(server.url, owner, member, 'member');
    expect((await http(server.url, 'GET', '/auth/audit', { headers: bearer(member.accessToken, owner.tenantId) })).status).toBe(403);
    expect((await http(server.url, 'GET', '/auth/audit/verify', { headers: bearer(member.accessToken, owner.tenantId) })).status).toBe(403);
    expect((await http(server.url, 'GET', '/auth/audit')).status).toBe(401);
  });
});

describe('GET /auth/audit/verify detects tampering', () => {
  it('an untouched chain verifies', async () => {
    const u = await userWithEvents(6);
    expect((await verify(u)).body).toEqual({ ok: true, checked: 6, broken_at: null, reason: null });
  });

  it('editing one event’s details breaks the chain at that event', async () => {
    const u = await userWithEvents(6);
    const r = sql.prepare('UPDATE audit_events SET details = ? WHERE tenant_id = ? AND seq = 3').run(['{"method":"sso"}', u.tenantId]);
    expect(r.changes).toBe(1);
    const res = (await verify(u)).body;
    expect(res).toMatchObject({ ok: false, broken_at: 3, checked: 2 });
    expect(res.reason).toMatch(/hash/);
  });

  it('editing an event and recomputing its hash still breaks the link to the next one', async () => {
    const u = await userWithEvents(6);
    const [second] = await server.services.ports.audit.range(u.tenantId, 1, 1);
    const { hash: _old, ...forged } = { ...second!, details: { method: 'sso' } };
    const rehashed = hashAuditEvent(forged);
    sql
      .prepare('UPDATE audit_events SET details = ?, hash = ? WHERE tenant_id = ? AND seq = 2')
      .run([JSON.stringify(forged.details), rehashed, u.tenantId]);
    // Event 2 is self-consistent now, but event 3 still points at the original hash.
    expect((await verify(u)).body).toMatchObject({ ok: false, broken_at: 3, checked: 2 });
  });

  it('deleting a middle event is detected', async () => {
    const u = await userWithEvents(6);
    sql.prepare('DELETE FROM audit_events WHERE tenant_id = ? AND seq = 4').run([u.tenantId]);
    const res = (await verify(u)).body;
    expect(res).toMatchObject({ ok: false, broken_at: 4, checked: 3 });
    expect(res.reason).toMatch(/missing/);
  });

  it('deleting the newest event is detected through the head', async () => {
    const u = await userWithEvents(6);
    sql.prepare('DELETE FROM audit_events WHERE tenant_id = ? AND seq = 6').run([u.tenantId]);
    expect((await verify(u)).body).toMatchObject({ ok: false, broken_at: 6, checked: 5 });
  });

  it('tampering in one tenant does not affect another tenant’s chain', async () => {
    const a = await userWithEvents(4);
    const b = await userWithEvents(4);
    sql.prepare('DELETE FROM audit_events WHERE tenant_id = ? AND seq = 1').run([a.tenantId]);
    expect((await verify(a)).body.ok).toBe(false);
    expect((await verify(b)).body).toMatchObject({ ok: true, checked: 4 });
  });
});
