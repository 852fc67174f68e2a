import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { createApiKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { portalCall, portalLogin, portalStepUp, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * `POST /api/portal/memories/delete`: bulk deletion by ids, filter or all, behind a `data.delete`
 * step-up token of the same portal session. Preview counts and changes nothing; a deletion goes the way
 * of `DELETE /memories/{id}` (gone from reads, search and usage) and is audited once with the user.
 */
let server: TestServer;
let nowMs = Date.now();

beforeAll(async () => {
  server = await startTestServer({}, { clock: () => nowMs });
});
afterAll(async () => {
  await server?.close();
});

interface Tenant {
  user: SignedUpUser;
  key: string;
  browser: PortalBrowser;
  api: ReturnType<typeof withKey>;
  /** POST /api/portal/memories/delete with a fresh data.delete step-up token unless `stepUp` is given. */
  del: (body: unknown, stepUp?: string) => ReturnType<typeof portalCall>;
}

async function tenant(): Promise<Tenant> {
  const user = await signUp(server.url);
  const key = await createApiKey(server.url, user);
  const browser = await portalLogin(server.url, user.email, user.password);
  return {
    user,
    key,
    browser,
    api: withKey(server.url, key),
    del: async (body, stepUp) =>
      portalCall(server.url, browser, 'POST', '/api/portal/memories/delete', {
        body,
        headers: { 'x-step-up-token': stepUp ?? (await portalStepUp(server.url, browser, 'data.delete', user.password)) },
      }),
  };
}

async function write(t: Tenant, body: Record<string, unknown>): Promise<string> {
  const res = await t.api('POST', '/memories', { body });
  expect(res.status, res.text).toBe(202);
  return res.body.memory_id as string;
}

async function listed(t: Tenant): Promise<string[]> {
  const res = await portalCall(server.url, t.browser, 'GET', '/api/portal/memories?limit=100');
  return res.body.memories.map((m: { id: string }) => m.id);
}

describe('POST /api/portal/memories/delete', () => {
  it('previews a deletion by ids without changing anything, then deletes those ids everywhere', async () => {
    const t = await tenant();
    const keep = await write(t, { content: 'keep the greenhouse notes' });
    const a = await write(t, { content: 'delete the orchid notes' });
    const b = await write(t, { content: 'delete the cactus notes' });
    await waitConsolidated(server.url, t.key);
    const preview = await t.del({ ids: [a, b, randomUUID()], preview: true });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body).toEqual({ would_delete: 2 });
    expect((await listed(t)).sort()).toEqual([keep, a, b].sort());

    const before = (await t.api('GET', '/usage')).body.memory_count;
    const res = await t.del({ ids: [a, b] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ deleted: 2, has_more: false });
    expect(await listed(t)).toEqual([keep]);
    expect((await t.api('GET', `/memories/${a}`)).status).toBe(404);
    expect((await t.api('GET', '/usage')).body.memory_count).toBe(before - 2);
    const search = await t.api('GET', '/memories/search?q=orchid%20cactus%20notes');
    expect(search.body.results.map((r: { memory_id: string }) => r.memory_id)).toEqual([keep]);

    const audit = await http(server.url, 'GET', '/auth/audit?limit=100', { headers: bearer(t.user.accessToken) });
    const events = audit.body.events.filter((e: { type: string }) => e.type === 'memory.bulk_delete');
    expect(events).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ user_id: t.user.userId }),
        target: { type: 'tenant', id: t.user.tenantId },
        details: { selector: 'ids', requested: 2, deleted: 2, has_more: false },
      }),
    ]);
    expect(audit.text).not.toContain('orchid');
  });

  it('deletes by the list filter, and `all` deletes the rest', async () => {
    const t = await tenant();
    const secret = await write(t, { content: 'the locker combination', sensitivity: 'high' });
    const other = await write(t, { content: 'the lunch menu', namespace: 'office' });
    const plain = await write(t, { content: 'the parking rules' });
    await waitConsolidated(server.url, t.key);
    expect((await t.del({ filter: { sensitivity: 'high' }, preview: true })).body).toEqual({ would_delete: 1 });
    expect((await t.del({ filter: { namespace: 'office', q: 'LUNCH' } })).body).toEqual({ deleted: 1, has_more: false });
    expect((await t.del({ filter: { sensitivity: 'high' } })).body).toEqual({ deleted: 1, has_more: false });
    expect(await listed(t)).toEqual([plain]);
    expect((await t.api('GET', `/memories/${secret}`)).status).toBe(404);
    expect((await t.api('GET', `/memories/${other}`)).status).toBe(404);
    expect((await t.del({ all: true, preview: true })).body).toEqual({ would_delete: 1 });
    expect((await t.del({ all: true })).body).toEqual({ deleted: 1, has_more: false });
    expect(await listed(t)).toEqual([]);
  });

  it("neither counts nor deletes another tenant's ids, and `all` stays inside the tenant", async () => {
    const a = await tenant();
    const b = await tenant();
    const theirs = await write(b, { content: 'tenant b keeps this' });
    await waitConsolidated(server.url, b.key);
    expect((await a.del({ ids: [theirs], preview: true })).body).toEqual({ would_delete: 0 });
    expect((await a.del({ ids: [theirs] })).body).toEqual({ deleted: 0, has_more: false });
    expect((await a.del({ all: true })).body).toEqual({ deleted: 0, has_more: false });
    const still = await b.api('GET', `/memories/${theirs}`);
    expect(still.status).toBe(200);
    expect(still.body.content).toBe('tenant b keeps this');
  });

  it('needs exactly one of ids, filter or all, valid ids, and a filter that makes sense (400)', async () => {
    const t = await tenant();
    const id = await write(t, { content: 'still here after bad requests' });
    const token = await portalStepUp(server.url, t.browser, 'data.delete', t.user.password);
    const bad: unknown[] = [
      {},
      { preview: true },
      { ids: [id], all: true },
      { ids: [id], filter: {} },
      { filter: {}, all: true },
      { filter: {} },
      { filter: {}, preview: true },
      { all: false },
      { ids: [] },
      { ids: ['not-a-uuid'] },
      { ids: Array.from({ length: 1001 }, () => randomUUID()) },
      { filter: { created_from: '2030-02-01T00:00:00Z', created_to: '2030-01-01T00:00:00Z' } },
      { filter: { sensitivity: 'extreme' } },
      { filter: { colour: 'red' } },
      { all: true, everything: true },
    ];
    for (const body of bad) {
      const res = await t.del(body, token);
      expect(res.status, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    expect(await listed(t)).toEqual([id]);
  });

  it('refuses without a step-up token, with one for another action, from another session, or expired', async () => {
    const t = await tenant();
    const id = await write(t, { content: 'guarded by step-up' });
    const refused = async (token: string) => {
      const res = await t.del({ all: true }, token);
      expect(res.status, res.text).toBe(403);
      expect(res.body.code).toBe('STEP_UP_REQUIRED');
    };
    await refused('');
    await refused(await portalStepUp(server.url, t.browser, 'data.export', t.user.password));
    const otherBrowser = await portalLogin(server.url, t.user.email, t.user.password);
    await refused(await portalStepUp(server.url, otherBrowser, 'data.delete', t.user.password));
    const token = await portalStepUp(server.url, t.browser, 'data.delete', t.user.password);
    nowMs += 301_000;
    await refused(token);
    expect(await listed(t)).toEqual([id]);
  });

  it('is for roles with data:delete only: a member is refused even with a step-up token', async () => {
    const owner = await tenant();
    const member = await signUp(server.url);
    await addToTenant(server.url, owner.user, member, 'member');
    const browser = await portalLogin(server.url, member.email, member.password);
    const id = await write(owner, { content: 'members cannot bulk delete this' });
    const token = await portalStepUp(server.url, browser, 'data.delete', member.password, owner.user.tenantId);
    const res = await portalCall(server.url, browser, 'POST', '/api/portal/memories/delete', {
      body: { all: true },
      tenantId: owner.user.tenantId,
      headers: { 'x-step-up-token': token },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect((await owner.api('GET', `/memories/${id}`)).status).toBe(200);
  });
});
