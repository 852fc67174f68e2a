import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { createApiKey, waitSettled, withKey } from '../support/memory-api.js';
import { portalCall, portalLogin, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The portal's knowledge pages (`/api/portal/knowledge`) over real HTTP and the embedded profile: the
 * types with their counts, offset pages, one object with provenance and confidence, the enrichment
 * log, and an enrichment started from the portal (audited with the user). Objects are written through
 * the Knowledge API with a key, as an agent would.
 */
let server: TestServer;
let owner: SignedUpUser;
let viewer: SignedUpUser;
let ownerBrowser: PortalBrowser;
let viewerBrowser: PortalBrowser;
let api: ReturnType<typeof withKey>;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url);
  viewer = await signUp(server.url);
  await addToTenant(server.url, owner, viewer, 'viewer');
  api = withKey(server.url, await createApiKey(server.url, owner, ['knowledge:read', 'knowledge:write', 'knowledge:admin']));
  ownerBrowser = await portalLogin(server.url, owner.email, owner.password);
  viewerBrowser = await portalLogin(server.url, viewer.email, viewer.password);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const inA = (browser: PortalBrowser, method: string, url: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) =>
  portalCall(server.url, browser, method, url, { tenantId: owner.tenantId, ...opts });

async function createObject(type: string, fields: Record<string, unknown>, key = api) {
  const res = await key('POST', `/v1/knowledge/${type}`, { body: { fields } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}

describe('portal knowledge types', () => {
  it('lists the built-ins and published types with their ACTIVE version and live object count', async () => {
    const before = await inA(viewerBrowser, 'GET', '/api/portal/knowledge/types');
    expect(before.status, before.text).toBe(200);
    expect(before.headers.get('cache-control')).toBe('no-store');
    const countOf = (body: any, type: string) => body.types.find((t: any) => t.type === type)?.object_count;
    const projects = countOf(before.body, 'project');
    await createObject('project', { name: `Portal ${randomUUID()}` });
    const typeName = `gadget${randomUUID().slice(0, 6)}`;
    const draft = await api('POST', `/v1/knowledge/${typeName}/structures`, {
      body: {
        schema_version: '1.0.0',
        schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', 'x-knowledge': { identity: true } } } },
      },
    });
    expect(draft.status, draft.text).toBe(201);
    const after = (await inA(viewerBrowser, 'GET', '/api/portal/knowledge/types')).body;
    expect(after.types.slice(0, 3).map((t: any) => t.type)).toEqual(['person', 'organization', 'project']);
    expect(after.types.find((t: any) => t.type === 'project')).toEqual({
      type: 'project',
      builtin: true,
      active_version: '1.0.0',
      versions: 1,
      object_count: projects + 1,
    });
    // A type with only a draft is listed, with no ACTIVE version yet.
    expect(after.types.find((t: any) => t.type === typeName)).toEqual({
      type: typeName,
      builtin: false,
      active_version: null,
      versions: 1,
      object_count: 0,
    });
  });
});

describe('portal knowledge list and object', () => {
  it('pages objects of a type by limit and offset, oldest first, with the total', async () => {
    const other = await signUp(server.url);
    const otherApi = withKey(server.url, await createApiKey(server.url, other, ['knowledge:read', 'knowledge:write']));
    const browser = await portalLogin(server.url, other.email, other.password);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createObject('organization', { name: `Paged Org ${i}` }, otherApi)).id);
    const page = await portalCall(server.url, browser, 'GET', '/api/portal/knowledge?type=organization&limit=2&offset=1');
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.body.objects.map((o: any) => o.id)).toEqual(ids.slice(1, 3));
    expect(page.body.objects[0]).toMatchObject({ ks_type: 'organization', status: 'INCOMPLETE', completeness_score: expect.any(Number) });
    const last = await portalCall(server.url, browser, 'GET', '/api/portal/knowledge?type=organization&limit=10&offset=4');
    expect(last.body.objects.map((o: any) => o.id)).toEqual(ids.slice(4));
    const byStatus = await portalCall(server.url, browser, 'GET', '/api/portal/knowledge?type=organization&status=COMPLETE');
    expect(byStatus.body).toMatchObject({ objects: [], total: 0, limit: 20, offset: 0 });
  });

  it('answers 400 for a bad limit, offset or status and a missing type, 404 for an unknown type', async () => {
    for (const q of ['type=person&limit=0', 'type=person&limit=101', 'type=person&offset=-1', 'type=person&status=DONE', 'limit=5']) {
      const res = await inA(viewerBrowser, 'GET', `/api/portal/knowledge?${q}`);
      expect(res.status, `${q}: ${res.text}`).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    const unknown = await inA(viewerBrowser, 'GET', '/api/portal/knowledge?type=nosuchtype');
    expect(unknown.status).toBe(404);
  });

  it('shows one object with per-field value, provenance and confidence; another tenant or type is 404', async () => {
    const o = await createObject('person', { name: 'Ingrid Portal', job_title: 'Cartographer' });
    const res = await inA(viewerBrowser, 'GET', `/api/portal/knowledge/person/${o.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.fields.job_title).toMatchObject({ value: 'Cartographer', provenance: 'AGENT_INPUT', confidence: 1 });
    expect(res.body).toMatchObject({ id: o.id, ks_type: 'person', completeness_score: expect.any(Number), status: 'INCOMPLETE' });
    expect((await inA(viewerBrowser, 'GET', `/api/portal/knowledge/organization/${o.id}`)).status).toBe(404);
    expect((await inA(viewerBrowser, 'GET', `/api/portal/knowledge/person/${randomUUID()}`)).status).toBe(404);
    // The same id asked for in the viewer's own tenant: not there.
    expect((await portalCall(server.url, viewerBrowser, 'GET', `/api/portal/knowledge/person/${o.id}`)).status).toBe(404);
    expect((await portalCall(server.url, viewerBrowser, 'GET', `/api/portal/knowledge/person/${o.id}/log`)).status).toBe(404);
  });
});

describe('portal enrichment', () => {
  it('starts a run (202 ENRICHING) whose entries show in the log, audited with the user', async () => {
    const org = await createObject('organization', { name: 'Portal Northwind', website: 'https://www.portal-northwind.co.uk/about' });
    const started = await inA(ownerBrowser, 'POST', `/api/portal/knowledge/organization/${org.id}/enrich`);
    expect(started.status, started.text).toBe(202);
    expect(started.body).toEqual({ id: org.id, status: 'ENRICHING' });
    const done = await waitSettled((m, u) => inA(ownerBrowser, m, u), `/api/portal/knowledge/organization/${org.id}`);
    expect(done.fields.domain).toMatchObject({ value: 'portal-northwind.co.uk', provenance: 'KG_INFERENCE' });
    expect(done.status).toBe('PARTIALLY_COMPLETE');

    const log = await inA(viewerBrowser, 'GET', `/api/portal/knowledge/organization/${org.id}/log`);
    expect(log.status, log.text).toBe(200);
    expect(log.body.next_after).toBeNull();
    expect(log.body.entries).toContainEqual(
      expect.objectContaining({
        engine: 'rule',
        field: 'domain',
        outcome: 'committed',
        ko_id: org.id,
        candidate_value: 'portal-northwind.co.uk',
      }),
    );
    // Paged: one entry at a time, each page pointing at the next, the whole log in order.
    const all = log.body.entries.map((e: any) => e.id);
    const seen: string[] = [];
    let after: string | null = null;
    for (let guard = 0; guard <= all.length; guard++) {
      const page: any = await inA(
        viewerBrowser,
        'GET',
        `/api/portal/knowledge/organization/${org.id}/log?limit=1${after ? `&after=${after}` : ''}`,
      );
      seen.push(...page.body.entries.map((e: any) => e.id));
      after = page.body.next_after;
      if (!after) break;
    }
    expect(seen).toEqual(all);

    const audit = await http(server.url, 'GET', '/auth/audit?limit=50', { headers: bearer(owner.accessToken) });
    expect(audit.body.events).toContainEqual(
      expect.objectContaining({
        type: 'knowledge.enrich_request',
        actor: expect.objectContaining({ user_id: owner.userId }),
        target: expect.objectContaining({ id: org.id }),
      }),
    );
  });

  it('refuses a viewer (403), a call without the CSRF token (403), an unknown object (404) and do_not_enrich (409)', async () => {
    const o = await createObject('person', { name: 'Quiet Person' });
    const viewerTry = await inA(viewerBrowser, 'POST', `/api/portal/knowledge/person/${o.id}/enrich`);
    expect(viewerTry.status).toBe(403);
    expect(viewerTry.body.code).toBe('FORBIDDEN');
    const noCsrf = await inA(ownerBrowser, 'POST', `/api/portal/knowledge/person/${o.id}/enrich`, { headers: { 'x-csrf-token': '' } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('CSRF_FAILED');
    expect((await api('GET', `/v1/knowledge/person/${o.id}`)).body.status).toBe('INCOMPLETE');
    expect((await inA(ownerBrowser, 'POST', `/api/portal/knowledge/person/${randomUUID()}/enrich`)).status).toBe(404);
    const opted = await api('POST', '/v1/knowledge/person', { body: { fields: { name: 'Opted Out' }, do_not_enrich: true } });
    const refused = await inA(ownerBrowser, 'POST', `/api/portal/knowledge/person/${opted.body.id}/enrich`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('ENRICHMENT_DISABLED');
  });
});
