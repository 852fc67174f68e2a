import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/auth.js';
import { html, startLoopbackSite, type LoopbackSite } from '../support/loopback-site.js';
import { createApiKey, tenantWithKey, waitSettled, withKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The web enrichment engine over real HTTP with in-process workers: the tenant's `web_enrichment`
 * setting, a run that reads a loopback site's JSON-LD and OpenGraph data (on a server started with
 * WEB_ENRICHMENT_ALLOW_PRIVATE), and the SSRF guard of servers started without that allowance. No
 * request ever leaves the machine: non-loopback addresses are refused before any connection. Every
 * name and text here is made up for this test.
 */
const SCOPES = ['knowledge:read', 'knowledge:write', 'knowledge:admin'];
const ORG = 'Kestrel Fjord Analytics';

const organizationPage = (origin: string) => `<!doctype html>
<html><head>
  <title>${ORG}</title>
  <meta property="og:site_name" content="${ORG}">
  <meta property="og:url" content="${origin}/">
  <script type="application/ld+json">${JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'Organization',
    name: ORG,
    url: `${origin}/`,
    industry: 'Maritime data analytics',
    address: { '@type': 'PostalAddress', addressLocality: 'Bergen', addressCountry: 'NO' },
  })}</script>
</head><body><h1>${ORG}</h1></body></html>`;

async function tenant(server: TestServer, scopes = SCOPES) {
  const { user, key } = await tenantWithKey(server.url, scopes);
  return { user, key, api: withKey(server.url, key) };
}

async function enableWeb(api: ReturnType<typeof withKey>) {
  const res = await api('PUT', '/settings/knowledge', { body: { web_enrichment: true } });
  expect(res.status, res.text).toBe(200);
}

/** Creates an organisation with this website, runs enrichment to the end, and returns the object and its log. */
async function enrichedOrganization(api: ReturnType<typeof withKey>, website: string) {
  const created = await api('POST', '/v1/knowledge/organization', { body: { fields: { name: ORG, website } } });
  expect(created.status, created.text).toBe(201);
  const path = `/v1/knowledge/organization/${created.body.id}`;
  expect((await api('POST', `${path}/enrich`)).status).toBe(202);
  const object = await waitSettled(api, path);
  const log = (await api('GET', `${path}/enrichment-log`)).body as Array<Record<string, any>>;
  return { object, log, web: log.filter((e) => e.engine === 'web') };
}

/** No field holds a web value, and every web entry is the refusal given, naming the fetched URL. */
function expectRefused(run: Awaited<ReturnType<typeof enrichedOrganization>>, strategy: string, outcome: string, url: string) {
  expect(Object.values(run.object.fields).map((f: any) => f.provenance)).not.toContain('WEB_INFERENCE');
  expect(run.web.length).toBeGreaterThan(0);
  for (const entry of run.web) expect(entry).toMatchObject({ strategy, outcome, source_refs: [url], candidate_value: null });
  expect(run.web.map((e) => e.field)).toEqual(expect.arrayContaining(['industry', 'headquarters']));
}

describe('with private addresses allowed (a loopback site)', () => {
  let server: TestServer;
  let site: LoopbackSite;
  beforeAll(async () => {
    server = await startTestServer({ WEB_ENRICHMENT_ALLOW_PRIVATE: 'true' });
    site = await startLoopbackSite((_req, res) => html(res, organizationPage(site.origin)));
  });
  afterAll(async () => {
    await site?.close();
    await server?.close();
  });

  it("fills an organisation's industry and headquarters from its own website's JSON-LD, naming the URL", async () => {
    const { api } = await tenant(server);
    await enableWeb(api);
    const { object, log, web } = await enrichedOrganization(api, `${site.origin}/`);
    expect(object.fields.industry).toMatchObject({ value: 'Maritime data analytics', provenance: 'WEB_INFERENCE', confidence: 0.9 });
    expect(object.fields.headquarters).toMatchObject({ value: 'Bergen, Norway', provenance: 'WEB_INFERENCE' });
    const committed = web.filter((e) => e.outcome === 'committed');
    expect(committed.map((e) => e.field)).toEqual(expect.arrayContaining(['industry', 'headquarters']));
    for (const entry of committed) expect(entry).toMatchObject({ strategy: 'jsonld', source_refs: [`${site.origin}/`] });
    expect(committed.find((e) => e.field === 'industry')!.candidate_value).toBe(object.fields.industry.value);
    // The web engine comes last: the rule engine's entries are all logged before its first one.
    const firstWeb = log.findIndex((e) => e.engine === 'web');
    expect(log.slice(firstWeb).every((e) => e.engine === 'web')).toBe(true);
  });

  it('is never tried for a tenant that has not turned web enrichment on: no request, no log entry', async () => {
    const { api } = await tenant(server);
    const before = site.hits.length;
    const { object, web } = await enrichedOrganization(api, `${site.origin}/`);
    expect(web).toEqual([]);
    expect(object.fields.industry).toBeUndefined();
    expect(site.hits.length).toBe(before);
  });

  it('stops fetching once the tenant turns it off again', async () => {
    const { api } = await tenant(server);
    await enableWeb(api);
    expect((await api('PUT', '/settings/knowledge', { body: { web_enrichment: false } })).body.web_enrichment).toBe(false);
    const before = site.hits.length;
    expect((await enrichedOrganization(api, `${site.origin}/`)).web).toEqual([]);
    expect(site.hits.length).toBe(before);
  });
});

describe('/settings/knowledge', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('reads the default (off), stores a change per tenant, and audits the change once', async () => {
    const { user, api } = await tenant(server);
    const initial = await api('GET', '/settings/knowledge');
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({ web_enrichment: false, updated_at: null });
    const changed = await api('PUT', '/settings/knowledge', { body: { web_enrichment: true } });
    expect(changed.body).toEqual({ web_enrichment: true, updated_at: expect.any(String) });
    expect((await api('GET', '/settings/knowledge')).body).toEqual(changed.body);
    // Saving the same value again changes nothing, so it is not audited twice.
    await api('PUT', '/settings/knowledge', { body: { web_enrichment: true } });
    const audit = await http(server.url, 'GET', '/auth/audit?limit=50', { headers: bearer(user.accessToken) });
    const events = (audit.body.events as any[]).filter((e) => e.type === 'knowledge.settings_update');
    expect(events).toHaveLength(1);
    expect(events[0].details).toEqual({ old: { web_enrichment: false }, new: { web_enrichment: true } });
    const other = await tenant(server);
    expect((await other.api('GET', '/settings/knowledge')).body.web_enrichment).toBe(false);
  });

  it('answers 401 without a key and 403 without the scope (knowledge:read to read, knowledge:admin to change)', async () => {
    const { user, api } = await tenant(server, ['knowledge:read', 'knowledge:write']);
    expect((await http(server.url, 'GET', '/settings/knowledge')).status).toBe(401);
    const anonymousPut = await http(server.url, 'PUT', '/settings/knowledge', { body: { web_enrichment: true } });
    expect(anonymousPut.status).toBe(401);
    expect(anonymousPut.body.code).toBe('UNAUTHENTICATED');
    expect((await api('GET', '/settings/knowledge')).status).toBe(200);
    const put = await api('PUT', '/settings/knowledge', { body: { web_enrichment: true } });
    expect(put.status).toBe(403);
    expect(put.body.code).toBe('SCOPE_MISSING');
    expect((await api('GET', '/settings/knowledge')).body.web_enrichment).toBe(false);
    const memoriesOnly = withKey(server.url, await createApiKey(server.url, user, ['memories:read']));
    expect((await memoriesOnly('GET', '/settings/knowledge')).status).toBe(403);
  });

  it.each([
    ['a string', { web_enrichment: 'true' }, 'web_enrichment'],
    ['a number', { web_enrichment: 1 }, 'web_enrichment'],
    ['nothing', {}, 'web_enrichment'],
    ['an unknown setting beside it', { web_enrichment: true, llm_enrichment: true }, 'llm_enrichment'],
  ])('answers 400 VALIDATION_FAILED naming the field for %s', async (_what, body, field) => {
    const { api } = await tenant(server);
    const res = await api('PUT', '/settings/knowledge', { body });
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(res.body.fields)).toContain(field);
    expect((await api('GET', '/settings/knowledge')).body.web_enrichment).toBe(false);
  });
});

describe('the SSRF guard (a server without WEB_ENRICHMENT_ALLOW_PRIVATE)', () => {
  let server: TestServer;
  let site: LoopbackSite;
  beforeAll(async () => {
    server = await startTestServer();
    // A real site on loopback: were the guard to let a fetch through, it would answer with good data.
    site = await startLoopbackSite((_req, res) => html(res, organizationPage(site.origin)));
  });
  afterAll(async () => {
    await site?.close();
    await server?.close();
  });

  const port = () => new URL(site.origin).port;
  it.each([
    ['loopback', () => `http://127.0.0.1:${port()}/`],
    ['a name resolving to loopback', () => `http://localhost:${port()}/`],
    ['IPv6 loopback', () => `http://[::1]:${port()}/`],
    ['IPv4-mapped IPv6 loopback', () => `http://[::ffff:7f00:1]:${port()}/`],
    ['a private address', () => 'http://10.0.0.1/'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('refuses %s: policy_denied, nothing fetched, no value written', async (_what, url) => {
    const { api } = await tenant(server);
    await enableWeb(api);
    const before = site.hits.length;
    const run = await enrichedOrganization(api, url());
    expectRefused(run, 'fetch:blocked_address', 'policy_denied', url());
    expect(site.hits.length).toBe(before);
  });
});

describe('redirects and limits (a server that trusts 127.0.0.1 alone)', () => {
  let server: TestServer;
  let target: LoopbackSite;
  let redirecting: LoopbackSite;
  let oversized: LoopbackSite;
  let slow: LoopbackSite;
  beforeAll(async () => {
    // The operator's range setting allows the first host only, so a redirect elsewhere on loopback is refused.
    server = await startTestServer({
      WEB_ENRICHMENT_ALLOWED_RANGES: '127.0.0.1/32',
      WEB_ENRICHMENT_MAX_BYTES: '8192',
      WEB_ENRICHMENT_TIMEOUT_MS: '800',
    });
    target = await startLoopbackSite((_req, res) => html(res, organizationPage(target.origin)), '127.0.0.2');
    redirecting = await startLoopbackSite((_req, res) => {
      res.writeHead(302, { location: `${target.origin}/` });
      res.end();
    });
    // The JSON-LD comes first, so only the size limit stands between the engine and good data.
    oversized = await startLoopbackSite((_req, res) => html(res, organizationPage(oversized.origin) + `<p>${'x'.repeat(64 * 1024)}</p>`));
    slow = await startLoopbackSite((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<!doctype html><html><head>');
    });
  });
  afterAll(async () => {
    for (const s of [target, redirecting, oversized, slow]) await s?.close();
    await server?.close();
  });

  it('reads a page on the trusted host (the range setting lets it through)', async () => {
    const page = await startLoopbackSite((_req, res) => html(res, organizationPage(page.origin)));
    try {
      const { api } = await tenant(server);
      await enableWeb(api);
      const { object } = await enrichedOrganization(api, `${page.origin}/`);
      expect(object.fields.industry).toMatchObject({ value: 'Maritime data analytics', provenance: 'WEB_INFERENCE' });
    } finally {
      await page.close();
    }
  });

  it('refuses a redirect from the trusted host to another address: policy_denied, the target never reached', async () => {
    const { api } = await tenant(server);
    await enableWeb(api);
    const run = await enrichedOrganization(api, `${redirecting.origin}/`);
    expectRefused(run, 'fetch:blocked_address', 'policy_denied', `${redirecting.origin}/`);
    expect(redirecting.hits).toEqual(['/']);
    expect(target.hits).toEqual([]);
  });

  it('stops at the size limit: error, no value written', async () => {
    const { api } = await tenant(server);
    await enableWeb(api);
    expectRefused(await enrichedOrganization(api, `${oversized.origin}/`), 'fetch:too_large', 'error', `${oversized.origin}/`);
  });

  it('gives up on a slow server at the time limit: error, no value written, the run still settles', async () => {
    const { api } = await tenant(server);
    await enableWeb(api);
    const started = Date.now();
    const run = await enrichedOrganization(api, `${slow.origin}/`);
    expectRefused(run, 'fetch:timeout', 'error', `${slow.origin}/`);
    expect(run.object.status).toBe('PARTIALLY_COMPLETE');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
