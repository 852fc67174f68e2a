import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { portalCall, portalLogin, portalStepUp, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * `GET /api/portal/audit` (filters: type exact or `area.` prefix, actor, from/to; paging) and
 * `GET /api/portal/audit/verify`, against events the tenant's own actions wrote at known times.
 */
const T0 = Date.parse('2026-11-20T08:00:00.000Z');
let nowMs = T0;
let server: TestServer;
let owner: SignedUpUser;
let browser: PortalBrowser;
let keyId: string;
let memoryId: string;

beforeAll(async () => {
  server = await startTestServer({}, { clock: () => nowMs });
  owner = await signUp(server.url); // user.signup, auth.login at T0
  nowMs = T0 + 60_000;
  const key = await http(server.url, 'POST', '/api-keys', {
    headers: bearer(owner.accessToken),
    body: { name: 'audit-test', scopes: ['memories:read', 'memories:write'] },
  });
  keyId = key.body.key_id; // api_key.create at T0 + 1 min
  const written = await http(server.url, 'POST', '/memories', {
    headers: { 'x-api-key': key.body.secret },
    body: { content: 'to be deleted' },
  });
  memoryId = written.body.memory_id;
  nowMs = T0 + 120_000;
  const deleted = await http(server.url, 'DELETE', `/memories/${memoryId}`, { headers: { 'x-api-key': key.body.secret } });
  expect(deleted.status, deleted.text).toBe(200); // memory.delete by the key at T0 + 2 min
  nowMs = T0 + 180_000;
  browser = await portalLogin(server.url, owner.email, owner.password); // auth.login at T0 + 3 min
  await portalStepUp(server.url, browser, 'data.export', owner.password); // auth.step_up
});
afterAll(async () => {
  await server?.close();
});

const audit = (query: string) => portalCall(server.url, browser, 'GET', `/api/portal/audit${query}`);
const typesOf = (res: { body: any }) => res.body.events.map((e: any) => e.type);

describe('portal audit list', () => {
  it('answers the events newest first in the /auth/audit shape, with total, limit and offset', async () => {
    const res = await audit('');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const viaBearer = await http(server.url, 'GET', '/auth/audit?limit=50', { headers: bearer(owner.accessToken) });
    const seqs = res.body.events.map((e: any) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a: number, b: number) => b - a));
    // Same events, same shape (the bearer call may have added none: reads are not audited).
    expect(res.body.events).toEqual(viaBearer.body.events);
    expect(res.body).toMatchObject({ total: res.body.events.length, limit: 50, offset: 0 });
  });

  it('filters on an exact type, or on an area with a trailing "."', async () => {
    expect(typesOf(await audit('?type=api_key.create'))).toEqual(['api_key.create']);
    const area = await audit('?type=auth.');
    expect(typesOf(area).every((t: string) => t.startsWith('auth.'))).toBe(true);
    expect(typesOf(area)).toEqual(expect.arrayContaining(['auth.step_up', 'auth.login']));
    expect(area.body.total).toBe(area.body.events.length);
    expect((await audit('?type=auth')).body.total).toBe(0); // no event is of the bare type "auth"
  });

  it('filters on the actor: a key id or a user id', async () => {
    const byKey = await audit(`?actor=${keyId}`);
    expect(byKey.body.events).toEqual([
      expect.objectContaining({ type: 'memory.delete', actor: { user_id: null, key_id: keyId }, target: { type: 'memory', id: memoryId } }),
    ]);
    const byUser = await audit(`?actor=${owner.userId}`);
    expect(typesOf(byUser)).not.toContain('memory.delete');
    expect(typesOf(byUser)).toContain('api_key.create');
  });

  it('filters on time, inclusive at both ends, and combines filters', async () => {
    const window = await audit(`?from=${new Date(T0 + 60_000).toISOString()}&to=${new Date(T0 + 120_000).toISOString()}`);
    expect(typesOf(window)).toEqual(['memory.delete', 'api_key.create']);
    const combined = await audit(`?type=auth.&from=${new Date(T0 + 180_000).toISOString()}`);
    expect(typesOf(combined)).toEqual(['auth.step_up', 'auth.login']);
  });

  it('pages with limit and offset over the filtered selection', async () => {
    const all = await audit('');
    const page = await audit('?limit=2&offset=1');
    expect(page.body).toMatchObject({ limit: 2, offset: 1, total: all.body.total });
    expect(page.body.events).toEqual(all.body.events.slice(1, 3));
  });

  it('refuses malformed filters (400)', async () => {
    for (const q of ['?type=.auth', '?type=Auth.Login', '?type=a..b', '?limit=0', '?limit=201', '?offset=-1', '?from=yesterday']) {
      const res = await audit(q);
      expect(res.status, q).toBe(400);
    }
  });

  it("never shows another tenant's events", async () => {
    const other = await signUp(server.url);
    const res = await audit(`?actor=${other.userId}`);
    expect(res.body.total).toBe(0);
  });
});

describe('portal audit verify', () => {
  it('recomputes the hash chain over every event', async () => {
    const res = await portalCall(server.url, browser, 'GET', '/api/portal/audit/verify');
    expect(res.status, res.text).toBe(200);
    const total = (await audit('')).body.total;
    expect(res.body).toEqual({ ok: true, checked: total, broken_at: null, reason: null });
  });
});
