import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enforceRetention } from '../../jobs/definitions/enforce-retention.js';
import { addToTenant, signUp, type SignedUpUser } from '../support/auth.js';
import { until } from '../support/job-fixtures.js';
import { createApiKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { portalCall, portalLogin, portalStepUp, type PortalBrowser } from '../support/portal.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * `GET/POST /api/portal/retention` and the `maintenance.retention` job that enforces it: settings
 * validated and changed only with a `retention.override` step-up, audited; the job, run with the clock
 * moved on, purges only the versions replaced longer ago than `superseded_days`, only in that tenant.
 */
const SCOPES = ['memories:read', 'memories:write', 'usage:read'];
const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T10:00:00.000Z');
let nowMs = T0;
let server: TestServer;
let owner: SignedUpUser;
let browser: PortalBrowser;

beforeAll(async () => {
  server = await startTestServer({}, { clock: () => nowMs });
  owner = await signUp(server.url);
  browser = await portalLogin(server.url, owner.email, owner.password);
});
afterAll(async () => {
  await server?.close();
});

const setRetention = async (body: unknown, b = browser, password = owner.password) =>
  portalCall(server.url, b, 'POST', '/api/portal/retention', {
    body,
    headers: { 'x-step-up-token': await portalStepUp(server.url, b, 'retention.override', password) },
  });

describe('retention settings', () => {
  it('keeps everything until set, and a viewer may read them', async () => {
    const viewer = await signUp(server.url);
    await addToTenant(server.url, owner, viewer, 'viewer');
    const viewerBrowser = await portalLogin(server.url, viewer.email, viewer.password);
    const res = await portalCall(server.url, viewerBrowser, 'GET', '/api/portal/retention', { tenantId: owner.tenantId });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ deleted_days: null, superseded_days: null, updated_at: null, updated_by: null });
  });

  it('refuses days outside 1–3650, fractions, strings and missing fields (400)', async () => {
    for (const body of [
      { deleted_days: 0, superseded_days: null },
      { deleted_days: null, superseded_days: 3651 },
      { deleted_days: 1.5, superseded_days: null },
      { deleted_days: '30', superseded_days: null },
      { deleted_days: 30 },
      {},
    ]) {
      const res = await setRetention(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('needs a retention.override step-up of this session, and the retention:override permission', async () => {
    const none = await portalCall(server.url, browser, 'POST', '/api/portal/retention', { body: { deleted_days: 1, superseded_days: 1 } });
    expect(none.status).toBe(403);
    expect(none.body.code).toBe('STEP_UP_REQUIRED');
    const exportToken = await portalStepUp(server.url, browser, 'data.export', owner.password);
    const wrong = await portalCall(server.url, browser, 'POST', '/api/portal/retention', {
      body: { deleted_days: 1, superseded_days: 1 },
      headers: { 'x-step-up-token': exportToken },
    });
    expect(wrong.status).toBe(403);
    const member = await signUp(server.url);
    await addToTenant(server.url, owner, member, 'member');
    const memberBrowser = await portalLogin(server.url, member.email, member.password, { 'x-tenant-id': owner.tenantId });
    const token = await portalStepUp(server.url, memberBrowser, 'retention.override', member.password, owner.tenantId);
    const denied = await portalCall(server.url, memberBrowser, 'POST', '/api/portal/retention', {
      tenantId: owner.tenantId,
      body: { deleted_days: 1, superseded_days: 1 },
      headers: { 'x-step-up-token': token },
    });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
  });

  it('stores a change, answers and reads it back, and audits old and new values', async () => {
    const other = await signUp(server.url);
    const otherBrowser = await portalLogin(server.url, other.email, other.password);
    const res = await setRetention({ deleted_days: 30, superseded_days: 90 }, otherBrowser, other.password);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      deleted_days: 30,
      superseded_days: 90,
      updated_at: new Date(nowMs).toISOString(),
      updated_by: other.userId,
    });
    expect((await portalCall(server.url, otherBrowser, 'GET', '/api/portal/retention')).body).toEqual(res.body);
    const back = await setRetention({ deleted_days: null, superseded_days: 90 }, otherBrowser, other.password);
    expect(back.body.deleted_days).toBeNull();
    const audit = await portalCall(server.url, otherBrowser, 'GET', '/api/portal/audit?type=retention.');
    expect(audit.body.events.map((e: any) => e.type)).toEqual(['retention.change', 'retention.change']);
    expect(audit.body.events[0]).toMatchObject({
      actor: { user_id: other.userId },
      details: { old: { deleted_days: 30, superseded_days: 90 }, new: { deleted_days: null, superseded_days: 90 } },
    });
  });
});

describe('maintenance.retention', () => {
  it('is scheduled once, and purges only versions replaced longer ago than superseded_days, only in that tenant', async () => {
    const before = nowMs;
    try {
      await purgeScenario();
    } finally {
      nowMs = before; // the other tests' portal sessions were started at the unmoved time
    }
  });
});

/** Versions written at moved times in two tenants, retention set in one, the job run ten days on. */
async function purgeScenario() {
  expect((await server.services.jobs.counts(enforceRetention.name)).total).toBe(1);
  const tenant = await signUp(server.url);
  const keep = await signUp(server.url); // no retention set: keeps every version
  const apiOf = async (u: SignedUpUser) => {
    const key = await createApiKey(server.url, u, SCOPES);
    return { key, api: withKey(server.url, key) };
  };
  const a = await apiOf(tenant);
  const b = await apiOf(keep);
  const write = async (x: { key: string; api: ReturnType<typeof withKey> }, content: string, id?: string) => {
    const res = await x.api(id ? 'PUT' : 'POST', id ? `/memories/${id}` : '/memories', { body: { content } });
    expect(res.status, res.text).toBe(202);
    await waitConsolidated(server.url, x.key);
    return res.body.memory_id as string;
  };
  nowMs = T0 + 100 * DAY;
  const old = await write(a, 'Office is on floor 2');
  const otherTenants = await write(b, 'Office is on floor 2');
  nowMs += DAY;
  await write(a, 'Office is on floor 3', old);
  await write(a, 'Office is on floor 4', old);
  await write(b, 'Office is on floor 3', otherTenants);
  const recent = await write(a, 'Desk is by the window');
  nowMs += 8 * DAY;
  await write(a, 'Desk is by the door', recent);
  nowMs += DAY; // old: v1, v2 replaced 9 days ago, v3 current; recent: v1 replaced 1 day ago

  const browserA = await portalLogin(server.url, tenant.email, tenant.password);
  expect((await setRetention({ deleted_days: null, superseded_days: 5 }, browserA, tenant.password)).status).toBe(200);
  const versionsOf = async (x: { api: ReturnType<typeof withKey> }, id: string) =>
    ((await x.api('GET', `/memories/${id}/versions`)).body.versions as { version: number }[]).map((v) => v.version);
  expect(await versionsOf(a, old)).toEqual([1, 2, 3]);

  await server.services.jobs.now(enforceRetention, {});
  await until(async () => (await versionsOf(a, old)).length === 1, 'the superseded versions to be purged', 20_000);
  expect(await versionsOf(a, old)).toEqual([3]);
  expect(await versionsOf(a, recent)).toEqual([1, 2]);
  expect(await versionsOf(b, otherTenants)).toEqual([1, 2]);
  expect((await a.api('GET', `/memories/${old}`)).body).toMatchObject({ content: 'Office is on floor 4', version: 3 });
  const audit = await portalCall(server.url, browserA, 'GET', '/api/portal/audit?type=retention.purge');
  expect(audit.body.events).toEqual([
    expect.objectContaining({
      type: 'retention.purge',
      details: expect.objectContaining({ superseded_versions: 2, superseded_days: 5 }),
    }),
  ]);
}
