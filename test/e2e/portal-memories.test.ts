import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { createApiKey, waitConsolidated, withKey } from '../support/memory-api.js';
import { portalCall, portalLogin, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The portal's memory browser: `GET /api/portal/memories` (filters, paging totals), the detail, its
 * versions and a rollback, and `GET /api/portal/search`, all over the cookie session. Memories are
 * written through the REST API with an API key. Each test has a tenant of its own. The server's clock
 * is the test's, so created_at values are a minute apart where a date range needs them.
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
  portal: (method: string, url: string, body?: unknown) => ReturnType<typeof portalCall>;
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
    portal: (method, url, body) => portalCall(server.url, browser, method, url, { body }),
  };
}

async function write(t: Tenant, body: Record<string, unknown>): Promise<string> {
  const res = await t.api('POST', '/memories', { body });
  expect(res.status, res.text).toBe(202);
  return res.body.memory_id as string;
}

const idsOf = (res: { body: { memories: { id: string }[] } }) => res.body.memories.map((m) => m.id);

describe('GET /api/portal/memories', () => {
  it('lists newest first with the spec item, a total and paging', async () => {
    const t = await tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      nowMs += 60_000;
      ids.push(await write(t, { title: `Note ${i}`, content: `note number ${i} `.repeat(40), tags: [`t${i}`] }));
    }
    await waitConsolidated(server.url, t.key);
    const all = await t.portal('GET', '/api/portal/memories');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 5, limit: 20, offset: 0 });
    expect(idsOf(all)).toEqual([...ids].reverse());
    expect(all.body.memories[0]).toEqual({
      id: ids[4],
      type: 'episodic',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      sensitivity: 'low',
      status: 'active',
      contradiction: 'clear',
      title: 'Note 4',
      tags: ['t4'],
      namespace: 'default',
      version: 1,
      dirty: false,
      injection_flagged: false,
      preview: 'note number 4 '.repeat(40).slice(0, 200),
    });
    const page = await t.portal('GET', '/api/portal/memories?limit=2&offset=2');
    expect(page.body).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(idsOf(page)).toEqual([ids[2], ids[1]]);
    expect((await t.portal('GET', '/api/portal/memories?offset=5')).body).toMatchObject({ memories: [], total: 5 });
    expect(all.headers.get('cache-control')).toBe('no-store');
  });

  it('filters by text, type, sensitivity, status, contradiction, namespace and creation date range', async () => {
    const t = await tenant();
    nowMs += 60_000;
    const semantic = await write(t, { content: 'The capital of Portugal is Lisbon', type: 'semantic', namespace: 'geo' });
    nowMs += 60_000;
    const secret = await write(t, { content: 'The vault code is kept offline', sensitivity: 'high' });
    await waitConsolidated(server.url, t.key);
    nowMs += 60_000;
    const paris = await write(t, { content: 'Alice lives in Paris' });
    await waitConsolidated(server.url, t.key);
    nowMs += 60_000;
    const berlin = await write(t, { content: 'Alice moved to Berlin' });
    await waitConsolidated(server.url, t.key);
    const list = async (query: string) => {
      const res = await t.portal('GET', `/api/portal/memories?${query}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.total).toBe(res.body.memories.length);
      return idsOf(res);
    };
    expect(await list('q=ALICE')).toEqual([berlin, paris]);
    expect(await list('type=semantic')).toEqual([semantic]);
    expect(await list('sensitivity=high')).toEqual([secret]);
    expect(await list('status=superseded')).toEqual([paris]);
    expect(await list('contradiction=resolved')).toEqual([berlin, paris]);
    expect(await list('contradiction=clear')).toEqual([secret, semantic]);
    expect(await list('namespace=geo')).toEqual([semantic]);
    const created = new Map((await t.portal('GET', '/api/portal/memories')).body.memories.map((m: any) => [m.id, m.created_at]));
    const from = encodeURIComponent(created.get(secret) as string);
    const to = encodeURIComponent(created.get(paris) as string);
    expect(await list(`created_from=${from}`)).toEqual([berlin, paris, secret]);
    expect(await list(`created_to=${to}`)).toEqual([paris, secret, semantic]);
    expect(await list(`created_from=${from}&created_to=${to}`)).toEqual([paris, secret]);
    expect(await list('q=alice&status=active&sensitivity=low')).toEqual([berlin]);
  });

  it('refuses bad filters and paging with 400: inverted dates, unknown values, limit out of range', async () => {
    const t = await tenant();
    const bad = [
      'created_from=2030-02-01T00:00:00Z&created_to=2030-01-01T00:00:00Z',
      'created_from=yesterday',
      'type=dream',
      'sensitivity=extreme',
      'status=gone',
      'contradiction=maybe',
      'limit=0',
      'limit=101',
      'offset=-1',
    ];
    for (const query of bad) {
      const res = await t.portal('GET', `/api/portal/memories?${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(400);
    }
    expect((await t.portal('GET', '/api/portal/memories?limit=100')).status).toBe(200);
  });

  it("shows only the current tenant's memories, and needs the cookie", async () => {
    const a = await tenant();
    const b = await tenant();
    await write(b, { content: 'only in tenant b' });
    const res = await a.portal('GET', '/api/portal/memories?q=tenant');
    expect(res.body).toMatchObject({ memories: [], total: 0 });
    expect((await http(server.url, 'GET', '/api/portal/memories')).status).toBe(401);
    expect((await http(server.url, 'GET', '/api/portal/memories', { headers: bearer(a.user.accessToken) })).status).toBe(401);
  });
});

describe('one memory: detail, versions, rollback', () => {
  it('shows the detail, rolls back through the portal and lists the versions', async () => {
    const t = await tenant();
    const id = await write(t, { title: 'Plan', content: 'Ship on Monday', metadata: { source: 'chat' } });
    await waitConsolidated(server.url, t.key);
    expect(
      (await t.api('PUT', `/memories/${id}`, { body: { title: 'Plan', content: 'Ship on Friday', metadata: { source: 'chat' } } })).status,
    ).toBe(202);
    await waitConsolidated(server.url, t.key);
    const detail = await t.portal('GET', `/api/portal/memories/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      memory_id: id,
      content: 'Ship on Friday',
      metadata: { source: 'chat' },
      version: 2,
      injection_flagged: false,
      contradiction_status: 'clear',
      conflicts_with: [],
    });
    const rollback = await t.portal('POST', `/api/portal/memories/${id}/rollback`, { target_version: 1 });
    expect(rollback.status, rollback.text).toBe(200);
    expect(rollback.body).toMatchObject({ memory_id: id, status: 'queued', version: 3, rolled_back_to: 1 });
    await waitConsolidated(server.url, t.key);
    const versions = await t.portal('GET', `/api/portal/memories/${id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.versions.map((v: any) => [v.version, v.content, v.rolled_back_to])).toEqual([
      [1, 'Ship on Monday', null],
      [2, 'Ship on Friday', null],
      [3, 'Ship on Monday', 1],
    ]);
    expect((await t.portal('GET', `/api/portal/memories/${id}`)).body.content).toBe('Ship on Monday');
  });

  it("answers 404 for another tenant's memory and an unknown version, 400 for a bad target, 403 without CSRF", async () => {
    const a = await tenant();
    const b = await tenant();
    const theirs = await write(b, { content: 'tenant b private note' });
    await waitConsolidated(server.url, b.key);
    expect((await a.portal('GET', `/api/portal/memories/${theirs}`)).status).toBe(404);
    expect((await a.portal('GET', `/api/portal/memories/${theirs}/versions`)).status).toBe(404);
    const foreign = await a.portal('POST', `/api/portal/memories/${theirs}/rollback`, { target_version: 1 });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOT_FOUND');
    expect((await b.portal('POST', `/api/portal/memories/${theirs}/rollback`, { target_version: 9 })).status).toBe(404);
    expect((await b.portal('POST', `/api/portal/memories/${theirs}/rollback`, { target_version: 0 })).status).toBe(400);
    const noCsrf = await portalCall(server.url, b.browser, 'POST', `/api/portal/memories/${theirs}/rollback`, {
      body: { target_version: 1 },
      headers: { 'x-csrf-token': '' },
    });
    expect(noCsrf.status).toBe(403);
    expect((await b.api('GET', `/memories/${theirs}`)).body.version).toBe(1);
  });
});

describe('GET /api/portal/search', () => {
  it('searches in every mode, `+` accepted as a space, and counts the search in usage', async () => {
    const t = await tenant();
    const id = await write(t, { content: 'Marie Curie discovered polonium and radium' });
    await write(t, { content: 'The bakery opens at seven' });
    await waitConsolidated(server.url, t.key);
    const before = (await t.api('GET', '/usage')).body.searches_current_period as number;
    for (const mode of ['vector-only', 'hybrid', 'hybrid%2Bgraph', 'hybrid+graph']) {
      const res = await t.portal('GET', `/api/portal/search?q=polonium%20radium&k=5&mode=${mode}`);
      expect(res.status, `${mode}: ${res.text}`).toBe(200);
      expect(res.body.results[0]).toMatchObject({ memory_id: id, content: 'Marie Curie discovered polonium and radium' });
      expect(res.body.k).toBe(5);
    }
    expect((await t.api('GET', '/usage')).body.searches_current_period).toBe(before + 4);
    expect((await t.portal('GET', '/api/portal/search?q=x&mode=psychic')).status).toBe(400);
    expect((await t.portal('GET', '/api/portal/search')).status).toBe(400);
    expect((await t.portal('GET', '/api/portal/search?q=x&k=101')).status).toBe(400);
  });

  it("never returns another tenant's memories", async () => {
    const a = await tenant();
    const b = await tenant();
    await write(b, { content: 'zanzibar zebra migration notes' });
    await waitConsolidated(server.url, b.key);
    const res = await a.portal('GET', '/api/portal/search?q=zanzibar%20zebra');
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
  });
});
