import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, signUp, type SignedUpUser } from '../support/auth.js';
import { createApiKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { portalCall, portalLogin, type PortalBrowser } from '../support/portal.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * `GET /api/portal/dashboard`: the same counters as `GET /usage` (one source), the plan's limits with
 * null for unlimited (as `/usage` says it), 30 days of per-day history, the last audit events for a
 * role that may read them, and the onboarding checklist.
 */
let server: TestServer;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let ownerBrowser: PortalBrowser;
let viewerBrowser: PortalBrowser;
let key: string;

beforeAll(async () => {
  // Writes limited, everything else unlimited: both forms of a limit on one tenant.
  server = await startTestServer({
    PLAN_LIMITS: JSON.stringify({ free: { writes: 200, reads: null, searches: null, storage_bytes: null, memories: null } }),
  });
  owner = await signUp(server.url);
  viewer = await signUp(server.url);
  await addToTenant(server.url, owner, viewer, 'viewer');
  ownerBrowser = await portalLogin(server.url, owner.email, owner.password);
  viewerBrowser = await portalLogin(server.url, viewer.email, viewer.password);
  key = await createApiKey(server.url, owner, ['memories:read', 'memories:write', 'usage:read']);
  const api = withKey(server.url, key);
  const ids: string[] = [];
  for (const content of ['the parcel left the depot', 'the invoice was paid', 'the meeting moved to friday']) {
    const res = await api('POST', '/memories', { body: { content } });
    expect(res.status).toBe(202);
    ids.push(res.body.memory_id);
  }
  await waitConsolidated(server.url, key);
  for (const id of ids.slice(0, 2)) expect((await api('GET', `/memories/${id}`)).status).toBe(200);
  expect((await api('GET', '/memories/search?q=parcel')).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('portal dashboard', () => {
  it("reports what GET /usage reports, and the tenant's memory count", async () => {
    const usage = (await withKey(server.url, key)('GET', '/usage')).body;
    const res = await portalCall(server.url, ownerBrowser, 'GET', '/api/portal/dashboard');
    expect(res.status, res.text).toBe(200);
    const d = res.body;
    expect(d.total_memories).toBe(3);
    expect(d.total_memories).toBe(usage.memory_count);
    expect(d.writes_this_period).toBe(usage.writes_current_period);
    expect(d.writes_this_period).toBe(3);
    expect(d.reads_this_period).toBe(usage.reads_current_period);
    expect(d.reads_this_period).toBeGreaterThanOrEqual(2);
    expect(d.searches_this_period).toBe(usage.searches_current_period);
    expect(d.searches_this_period).toBe(1);
    expect(d.storage_used).toBe(usage.storage_used_bytes);
    expect(d.storage_used).toBeGreaterThan(0);
    expect(d.current_plan).toBe(usage.plan);
    expect(d.period).toBe(usage.period);
    expect(d.period_ends_at).toBe(usage.period_ends_at);
    expect(d.quota_status).toEqual({
      used_percentage: 1.5,
      writes_used: 3,
      writes_limit: 200,
      reads_used: d.reads_this_period,
      reads_limit: null,
      searches_used: 1,
      searches_limit: null,
      storage_used_bytes: d.storage_used,
      storage_limit_bytes: null,
    });
  });

  it('has one history entry per day for 30 days ending today, holding the counts of today', async () => {
    const d = (await portalCall(server.url, ownerBrowser, 'GET', '/api/portal/dashboard')).body;
    expect(d.usage_history).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(d.usage_history.at(-1).date).toBe(today);
    const days = d.usage_history.map((h: { date: string }) => Date.parse(h.date));
    for (let i = 1; i < days.length; i++) expect(days[i] - days[i - 1]).toBe(86_400_000);
    // The tenant was made today: the whole period's counts are today's.
    expect(d.usage_history.at(-1)).toEqual({
      date: today,
      writes: d.writes_this_period,
      reads: d.reads_this_period,
      searches: d.searches_this_period,
    });
    for (const h of d.usage_history.slice(0, -1)) expect([h.writes, h.reads, h.searches]).toEqual([0, 0, 0]);
  });

  it('moves with a new read and search', async () => {
    const before = (await portalCall(server.url, ownerBrowser, 'GET', '/api/portal/dashboard')).body;
    expect((await withKey(server.url, key)('GET', '/memories/search?q=invoice')).status).toBe(200);
    const after = (await portalCall(server.url, ownerBrowser, 'GET', '/api/portal/dashboard')).body;
    expect(after.searches_this_period).toBe(before.searches_this_period + 1);
    expect(after.usage_history.at(-1).searches).toBe(before.usage_history.at(-1).searches + 1);
  });

  it('shows the last audit events to a role with audit:read, none to a viewer, and the onboarding checklist to both', async () => {
    const own = (await portalCall(server.url, ownerBrowser, 'GET', '/api/portal/dashboard')).body;
    expect(own.recent_audit_events.length).toBeGreaterThan(0);
    expect(own.recent_audit_events.length).toBeLessThanOrEqual(10);
    expect(own.recent_audit_events.map((e: { type: string }) => e.type)).toContain('api_key.create');
    const seqs = own.recent_audit_events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a: number, b: number) => b - a));
    const res = await portalCall(server.url, viewerBrowser, 'GET', '/api/portal/dashboard', { tenantId: owner.tenantId });
    expect(res.status, res.text).toBe(200);
    expect(res.body.recent_audit_events).toEqual([]);
    expect(res.body.total_memories).toBe(3);
    const checklist = { created_api_key: true, sent_first_memory: true, ran_first_search: true, completed_at: expect.any(String) };
    expect(own.onboarding_status).toEqual(checklist);
    expect(res.body.onboarding_status).toEqual(checklist);
  });

  it('starts empty for a fresh tenant: zero counts, nothing used, no step done', async () => {
    const other = await signUp(server.url);
    const browser = await portalLogin(server.url, other.email, other.password);
    const d = (await portalCall(server.url, browser, 'GET', '/api/portal/dashboard')).body;
    expect([d.total_memories, d.writes_this_period, d.reads_this_period, d.storage_used]).toEqual([0, 0, 0, 0]);
    expect(d.quota_status.used_percentage).toBe(0);
    expect(d.onboarding_status).toEqual({ created_api_key: false, sent_first_memory: false, ran_first_search: false, completed_at: null });
  });
});
