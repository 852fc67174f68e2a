import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp } from '../support/auth.js';
import { runCli } from '../support/cli.js';
import { createApiKey, withKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/** A suspended tenant: refused (403 TENANT_SUSPENDED) on every route acting on it, by key or by bearer. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const operator = { ip: null, userAgent: null };
const suspend = (tenantId: string) => server.services.tenants.setStatus(tenantId, 'suspended', operator);
const resume = (tenantId: string) => server.services.tenants.setStatus(tenantId, 'active', operator);

/** Polls until `check` holds (state, not time); fails after a generous deadline. */
async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('tenant suspension', () => {
  it("refuses a suspended tenant's API keys at once, keeps its accepted writes and consolidates them, and lets them back on resume", async () => {
    const owner = await signUp(server.url);
    const key = withKey(server.url, await createApiKey(server.url, owner));
    // The key and its tenant are now remembered by this process: the suspension must still apply at once.
    const accepted = await key('POST', '/memories', { body: { content: 'Written just before the suspension' } });
    expect(accepted.status).toBe(202);
    await suspend(owner.tenantId);

    for (const [method, path] of [
      ['GET', '/memories'],
      ['POST', '/memories'],
      ['GET', `/memories/${accepted.body.memory_id}`],
      ['DELETE', `/memories/${accepted.body.memory_id}`],
      ['GET', '/memories/search?q=suspension'],
      ['GET', '/usage'],
      ['GET', '/api-keys/current'],
    ] as const) {
      const res = await key(method, path, method === 'POST' ? { body: { content: 'refused' } } : {});
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body, `${method} ${path}`).toEqual({
        code: 'TENANT_SUSPENDED',
        message: expect.any(String),
        request_id: expect.any(String),
      });
    }

    // What was accepted before is kept and still consolidated (nothing accepted is ever lost).
    await until(
      async () => (await server.services.ports.memories.get(owner.tenantId, accepted.body.memory_id))?.pendingCount === 0,
      'consolidation',
    );
    expect(await server.services.ports.memories.get(owner.tenantId, accepted.body.memory_id)).toMatchObject({
      content: 'Written just before the suspension',
      committedVersion: 1,
    });

    await resume(owner.tenantId);
    expect((await key('GET', `/memories/${accepted.body.memory_id}`)).status).toBe(200);
  });

  it("refuses a suspended tenant's bearer routes but keeps the user's own: list tenants, primary tenant, create or switch tenant, sign out", async () => {
    const owner = await signUp(server.url);
    const auth = bearer(owner.accessToken);
    const other = await http(server.url, 'POST', '/auth/tenants', { headers: auth, body: { name: 'Other' } });
    expect(other.status).toBe(201);
    expect((await http(server.url, 'GET', '/auth/members', { headers: auth })).status).toBe(200);
    await suspend(owner.tenantId);

    for (const [method, path, body] of [
      ['GET', '/auth/members', undefined],
      ['GET', '/api-keys', undefined],
      ['POST', '/api-keys', { name: 'k', scopes: ['memories:read'] }],
      ['GET', '/auth/audit', undefined],
      ['POST', '/auth/step-up', { action: 'data.export', password: owner.password }],
      ['GET', '/settings/memory', undefined],
      ['GET', '/roles', undefined],
      ['GET', '/auth/break-glass', undefined],
    ] as const) {
      const res = await http(server.url, method, path, { headers: auth, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code, `${method} ${path}`).toBe('TENANT_SUSPENDED');
    }

    // The user's own routes still answer, so its members can move to another tenant.
    expect((await http(server.url, 'GET', '/auth/tenants', { headers: auth })).body.tenants).toHaveLength(2);
    expect((await http(server.url, 'GET', '/auth/gettenant', { headers: auth })).body.tenant_id).toBe(owner.tenantId);
    expect((await http(server.url, 'POST', '/auth/tenants', { headers: auth, body: { name: 'Third' } })).status).toBe(201);
    const switched = await http(server.url, 'GET', '/auth/members', { headers: bearer(owner.accessToken, other.body.tenant_id) });
    expect(switched.status).toBe(200);
    // A stranger naming the suspended tenant learns nothing about its status: not a member, 403 FORBIDDEN.
    const stranger = await signUp(server.url);
    expect((await http(server.url, 'GET', '/auth/members', { headers: bearer(stranger.accessToken, owner.tenantId) })).body.code).toBe(
      'FORBIDDEN',
    );

    // Resuming restores the tenant; both changes are in its audit log and the chain verifies.
    await resume(owner.tenantId);
    const audit = await http(server.url, 'GET', '/auth/audit?limit=100', { headers: auth });
    expect(audit.status).toBe(200);
    expect(
      audit.body.events.filter((e: { type: string }) => e.type === 'tenant.status_change').map((e: { details: unknown }) => e.details),
    ).toEqual([
      { from: 'suspended', to: 'active' },
      { from: 'active', to: 'suspended' },
    ]);
    expect((await http(server.url, 'GET', '/auth/audit/verify', { headers: auth })).body).toMatchObject({ ok: true });

    expect((await http(server.url, 'POST', '/auth/revoke', { headers: auth })).body).toEqual({ revoked: true });
  });

  it('suspends and resumes from the operator command; the running service follows at its next request', async () => {
    const owner = await signUp(server.url);
    const key = withKey(server.url, await createApiKey(server.url, owner));
    expect((await key('GET', '/usage')).status).toBe(200);
    const cli = async (...args: string[]) => {
      let out = '';
      const run = runCli(['tenant', ...args, '--data-dir', server.dataDir]);
      run.child.stdout.on('data', (c: string) => (out += c));
      return { code: await run.exited, out, err: run.stderr() };
    };
    const suspended = await cli('suspend', owner.tenantId);
    expect(suspended.code, suspended.err).toBe(0);
    expect(suspended.out).toContain(`tenant ${owner.tenantId}`);
    expect((await key('GET', '/usage')).body.code).toBe('TENANT_SUSPENDED');
    expect((await cli('resume', owner.tenantId)).code).toBe(0);
    expect((await key('GET', '/usage')).status).toBe(200);
  }, 120_000); // two child processes that compile the TypeScript sources on start

  it('answers 404 for an unknown tenant and records nothing when the status does not change', async () => {
    await expect(server.services.tenants.setStatus('00000000-0000-0000-0000-000000000000', 'suspended', operator)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const owner = await signUp(server.url);
    await resume(owner.tenantId);
    const audit = await http(server.url, 'GET', '/auth/audit?limit=100', { headers: bearer(owner.accessToken) });
    expect(audit.body.events.map((e: { type: string }) => e.type)).not.toContain('tenant.status_change');
  });
});
