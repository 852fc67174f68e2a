import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantMemoryClient } from '../../client/index.js';
import { tenantWithKey, waitSettled, withKey } from '../support/memory-api.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The enrichment log in pages over real HTTP (`limit`, `after`, `run_id`), on a log written by real
 * runs of the offline engines on the embedded profile's job queue. Every text here is made up for this test.
 */
const SCOPES = ['knowledge:read', 'knowledge:write'];
const RUNS = 3;

type Api = ReturnType<typeof withKey>;
interface Entry {
  id: string;
  run_id: string;
  created_at: string;
}

let server: TestServer;
let key: string;
let api: Api;
let orgId: string;
let orgPath: string;
/** The whole log of the organisation, as one default page answers it. */
let full: Entry[];

/** Polls the object until no run holds it. */
const settled = (path: string, caller: Api = api) => waitSettled(caller, path);

beforeAll(async () => {
  server = await startTestServer();
  key = (await tenantWithKey(server.url, SCOPES)).key;
  api = withKey(server.url, key);
  const org = await api('POST', '/v1/knowledge/organization', {
    body: { fields: { name: 'Pellucid Kiteworks', website: 'https://pellucid-kiteworks.example/contact' } },
  });
  expect(org.status, org.text).toBe(201);
  orgId = org.body.id;
  orgPath = `/v1/knowledge/organization/${orgId}`;
  // Each run logs every engine's attempt on every empty field, misses included: a few runs make a log of several pages.
  for (let run = 0; run < RUNS; run++) {
    const started = await api('POST', `${orgPath}/enrich`);
    expect(started.status, started.text).toBe(202);
    await settled(orgPath);
  }
  const res = await api('GET', `${orgPath}/enrichment-log`);
  expect(res.status, res.text).toBe(200);
  full = res.body;
}, 90_000);

afterAll(async () => {
  await server?.close();
});

/** Every page of `limit` entries, each after the previous page's last, until a short page. */
async function pageThrough(limit: number, extra = '') {
  const pages: Entry[][] = [];
  for (let guard = 0; guard < 100; guard++) {
    const after = pages.at(-1)?.at(-1)?.id;
    const res = await api('GET', `${orgPath}/enrichment-log?limit=${limit}${after ? `&after=${after}` : ''}${extra}`);
    expect(res.status, res.text).toBe(200);
    pages.push(res.body);
    if (res.body.length < limit) return pages;
  }
  throw new Error('the log never ended');
}

describe('enrichment log pages', () => {
  it('the runs wrote a log of several pages, oldest first', () => {
    expect(new Set(full.map((e) => e.run_id)).size).toBe(RUNS);
    expect(full.length).toBeGreaterThanOrEqual(3 * RUNS);
    const stamps = full.map((e) => e.created_at);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it.each([1, 4, 5])('pages of %i concatenate to the whole log, none over the limit', async (limit) => {
    const pages = await pageThrough(limit);
    expect(pages.every((p) => p.length <= limit)).toBe(true);
    expect(pages.length).toBe(Math.floor(full.length / limit) + 1);
    expect(pages.flat()).toEqual(full);
  });

  it('limit bounds the page: 1 and 1000 are accepted, the default answers everything up to 1000', async () => {
    expect((await api('GET', `${orgPath}/enrichment-log?limit=1`)).body).toEqual(full.slice(0, 1));
    expect((await api('GET', `${orgPath}/enrichment-log?limit=1000`)).body).toEqual(full);
    const middle = full[Math.floor(full.length / 2)]!;
    const rest = await api('GET', `${orgPath}/enrichment-log?after=${middle.id}`);
    expect(rest.body).toEqual(full.slice(full.indexOf(middle) + 1));
    expect((await api('GET', `${orgPath}/enrichment-log?after=${full.at(-1)!.id}`)).body).toEqual([]);
  });

  it("run_id keeps one run's entries, and pages through them", async () => {
    const second = full.find((e) => e.run_id !== full[0]!.run_id)!.run_id;
    const expected = full.filter((e) => e.run_id === second);
    expect((await api('GET', `${orgPath}/enrichment-log?run_id=${second}`)).body).toEqual(expected);
    expect((await pageThrough(2, `&run_id=${second}`)).flat()).toEqual(expected);
    expect((await api('GET', `${orgPath}/enrichment-log?run_id=no-such-run`)).body).toEqual([]);
  });

  it('the typed client pages the same way', async () => {
    const client = createTenantMemoryClient({ url: server.url, apiKey: key, batch: false });
    const first = await client.knowledge.enrichmentLog.query({ type: 'organization', id: orgId, limit: 2 });
    const next = await client.knowledge.enrichmentLog.query({ type: 'organization', id: orgId, limit: 2, after: first.at(-1)!.id });
    expect([...first, ...next]).toEqual(full.slice(0, 4));
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=-3', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=ten', 'limit'],
    ['after=', 'after'],
    [`after=${'x'.repeat(129)}`, 'after'],
    ['after=%00', 'after'],
    ['run_id=', 'run_id'],
  ])('%s is 400 VALIDATION_FAILED naming %s', async (q, field) => {
    const res = await api('GET', `${orgPath}/enrichment-log?${q}`);
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(res.body.fields.map((f: { field: string }) => f.field)).toEqual([field]);
  });

  it("an after that is not an entry of this object's log is 404: unknown, another object's, another tenant's", async () => {
    const sibling = await api('POST', '/v1/knowledge/organization', {
      body: { fields: { name: 'Sibling Sails', website: 'https://sibling-sails.example' } },
    });
    const siblingPath = `/v1/knowledge/organization/${sibling.body.id}`;
    await api('POST', `${siblingPath}/enrich`);
    await settled(siblingPath);
    const siblingEntry = (await api('GET', `${siblingPath}/enrichment-log?limit=1`)).body[0] as Entry;
    expect(siblingEntry).toBeDefined();

    const otherApi = withKey(server.url, (await tenantWithKey(server.url, SCOPES)).key);
    const theirs = await otherApi('POST', '/v1/knowledge/organization', {
      body: { fields: { name: 'Foreign Foils', website: 'https://foreign-foils.example' } },
    });
    const theirPath = `/v1/knowledge/organization/${theirs.body.id}`;
    await otherApi('POST', `${theirPath}/enrich`);
    await settled(theirPath, otherApi);
    await new Promise((r) => setTimeout(r, 50));
    const theirEntry = (await otherApi('GET', `${theirPath}/enrichment-log?limit=1`)).body[0] as Entry;
    expect(theirEntry).toBeDefined();

    for (const after of ['0195f3c2-7a10-7c3e-9d2a-5b8e4f1a6c01', siblingEntry.id, theirEntry.id]) {
      const res = await api('GET', `${orgPath}/enrichment-log?after=${after}`);
      expect(res.status, after).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
      expect(res.body.message).toContain(after);
    }
    // The other tenant reaching for this tenant's object (with one of its own entries as `after`) reads 404 as well.
    expect((await otherApi('GET', `${orgPath}/enrichment-log?after=${full[0]!.id}`)).status).toBe(404);
    expect((await otherApi('GET', `${orgPath}/enrichment-log`)).status).toBe(404);
  });
});
