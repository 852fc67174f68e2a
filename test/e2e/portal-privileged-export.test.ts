import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, signUp, type SignedUpUser } from '../support/auth.js';
import { createApiKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { portalCall, portalLogin, portalStepUp, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * `POST /api/portal/export`: a privileged portal action (step-up `data.export`, bound to this portal
 * session and unexpired), streamed as one JSON attachment holding every memory with its versions and
 * every knowledge object with its fields' provenance — and nothing of another tenant.
 */
const SCOPES = ['memories:read', 'memories:write', 'usage:read', 'knowledge:read', 'knowledge:write'];
let server: TestServer;
let nowMs = Date.parse('2026-11-26T10:00:00.000Z');
let owner: SignedUpUser;
let stranger: SignedUpUser;
let browser: PortalBrowser;
const memoryIds: string[] = [];
let personId: string;

beforeAll(async () => {
  server = await startTestServer({}, { clock: () => nowMs });
  owner = await signUp(server.url);
  stranger = await signUp(server.url);
  const ownerKey = await createApiKey(server.url, owner, SCOPES);
  const api = withKey(server.url, ownerKey);
  // More memories than one page of the export (100), one of them with a second version.
  for (let i = 0; i < 102; i++) {
    const res = await api('POST', '/memories', { body: { content: `Owner fact number ${i}`, tags: ['export'] } });
    expect(res.status, res.text).toBe(202);
    memoryIds.push(res.body.memory_id);
  }
  const updated = await api('PUT', `/memories/${memoryIds[0]}`, { body: { content: 'Owner fact number 0, revised' } });
  expect(updated.status, updated.text).toBe(202);
  const person = await api('POST', '/v1/knowledge/person', { body: { fields: { name: 'Dana Whitfield', employer: 'Northwind' } } });
  expect(person.status, person.text).toBe(201);
  personId = person.body.id;
  const strangerApi = withKey(server.url, await createApiKey(server.url, stranger, SCOPES));
  await strangerApi('POST', '/memories', { body: { content: 'Stranger secret 7f3a' } });
  await strangerApi('POST', '/v1/knowledge/person', { body: { fields: { name: 'Stranger Person 7f3a' } } });
  await waitConsolidated(server.url, ownerKey);
  browser = await portalLogin(server.url, owner.email, owner.password);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const exportWith = (b: PortalBrowser, headers: Record<string, string> = {}) =>
  portalCall(server.url, b, 'POST', '/api/portal/export', { headers });

describe('portal export: step-up', () => {
  it('refuses without a step-up token (403 STEP_UP_REQUIRED) and with a token earned for another action', async () => {
    const none = await exportWith(browser);
    expect(none.status).toBe(403);
    expect(none.body.code).toBe('STEP_UP_REQUIRED');
    const other = await portalStepUp(server.url, browser, 'retention.override', owner.password);
    const wrongAction = await exportWith(browser, { 'x-step-up-token': other });
    expect(wrongAction.status).toBe(403);
    expect(wrongAction.body.code).toBe('STEP_UP_REQUIRED');
  });

  it('refuses a token from another portal session of the same user, and an expired one', async () => {
    const elsewhere = await portalLogin(server.url, owner.email, owner.password);
    const foreign = await portalStepUp(server.url, elsewhere, 'data.export', owner.password);
    expect((await exportWith(browser, { 'x-step-up-token': foreign })).status).toBe(403);
    const token = await portalStepUp(server.url, browser, 'data.export', owner.password);
    nowMs += 301_000; // STEP_UP_TTL_SECONDS is 300
    try {
      const expired = await exportWith(browser, { 'x-step-up-token': token });
      expect(expired.status).toBe(403);
      expect(expired.body.code).toBe('STEP_UP_REQUIRED');
    } finally {
      nowMs -= 301_000;
    }
  });

  it('refuses a member, whose role lacks data:export, even with a token', async () => {
    const member = await signUp(server.url);
    await addToTenant(server.url, owner, member, 'member');
    const memberBrowser = await portalLogin(server.url, member.email, member.password, { 'x-tenant-id': owner.tenantId });
    const token = await portalStepUp(server.url, memberBrowser, 'data.export', member.password, owner.tenantId);
    const res = await portalCall(server.url, memberBrowser, 'POST', '/api/portal/export', {
      tenantId: owner.tenantId,
      headers: { 'x-step-up-token': token },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('answers 400 on /trpc, pointing to the streamed REST path', async () => {
    const res = await http(server.url, 'POST', '/trpc/portal.export', {
      body: { json: {} },
      headers: {
        cookie: browser.cookie,
        'x-csrf-token': browser.csrf,
        'x-step-up-token': await portalStepUp(server.url, browser, 'data.export', owner.password),
      },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('/api/portal/export');
  });
});

describe('portal export: the document', () => {
  let res: Awaited<ReturnType<typeof exportWith>>;
  beforeAll(async () => {
    res = await exportWith(browser, { 'x-step-up-token': await portalStepUp(server.url, browser, 'data.export', owner.password) });
  });

  it('is a streamed, uncached JSON attachment named after the tenant and the day', () => {
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="tenant-${owner.tenantId}-export-2026-11-26.json"`);
    expect(res.headers.get('transfer-encoding')).toBe('chunked'); // written piece by piece, no length known up front
    expect(res.headers.get('content-length')).toBeNull();
  });

  it('holds every memory with every version, and every knowledge object with its provenance', () => {
    const doc = res.body;
    expect(doc).toMatchObject({ format: 'tenant-memory-export', format_version: 1, tenant_id: owner.tenantId });
    expect(doc.memories.map((m: any) => m.memory_id).sort()).toEqual([...memoryIds].sort());
    const revised = doc.memories.find((m: any) => m.memory_id === memoryIds[0]);
    expect(revised.versions.map((v: any) => v.version)).toEqual([1, 2]);
    expect(revised.versions[0]).toMatchObject({ version: 1, change: 'create', content: 'Owner fact number 0' });
    const person = doc.knowledge_objects.find((o: any) => o.id === personId);
    expect(person.fields.name).toMatchObject({ value: 'Dana Whitfield', provenance: 'AGENT_INPUT', confidence: 1 });
    expect(doc.counts).toEqual({
      memories: 102,
      versions: doc.memories.reduce((n: number, m: any) => n + m.versions.length, 0),
      knowledge_objects: doc.knowledge_objects.length,
    });
    expect(doc.knowledge_objects).toHaveLength(1);
  });

  it("never holds another tenant's data", () => {
    expect(res.text).not.toContain('7f3a');
    expect(res.text).not.toContain(stranger.tenantId);
  });

  it('is audited as portal.export with the user and the counts', async () => {
    const audit = await portalCall(server.url, browser, 'GET', '/api/portal/audit?type=portal.export');
    expect(audit.status).toBe(200);
    expect(audit.body.events[0]).toMatchObject({
      type: 'portal.export',
      actor: { user_id: owner.userId, key_id: null },
      details: { memories: 102, knowledge_objects: 1, complete: true },
    });
  });
});
