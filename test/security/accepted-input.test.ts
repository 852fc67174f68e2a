import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../adapters/rest/openapi-document.js';
import { appRouter } from '../../routers/_app.js';
import { version } from '../../server/version.js';
import { bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { contractViolation } from '../support/error-shape.js';
import { hostileText } from '../support/hostile-values.js';
import { operationsOf, type JsonSchema } from '../support/openapi-operations.js';
import { portalLogin, portalStepUp, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * What the service accepts, it keeps: every stored text reads back exactly as written (or as its
 * schema documents it normalises, e.g. trimmed), or the write is refused with a 4xx — never
 * silently altered after a 2xx. And JSON types are strict: a number field takes no `true`, `"5"` or `[1]`.
 */

const SEED = 20_2620;

let server: TestServer;
let user: SignedUpUser;
let key: Record<string, string>;
let knowledgeKey: Record<string, string>;
/** The user's portal cookie, CSRF token and a data.delete step-up token (portal routes). */
let portal: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server.url);
  const created = await http(server.url, 'POST', '/api-keys', {
    headers: bearer(user.accessToken),
    body: { name: 'accepted-input', scopes: ['memories:read', 'memories:write'] },
  });
  key = { 'x-api-key': created.body.secret };
  const k = await http(server.url, 'POST', '/api-keys', {
    headers: bearer(user.accessToken),
    body: { name: 'accepted-input knowledge', scopes: ['knowledge:read', 'knowledge:write', 'knowledge:admin'] },
  });
  knowledgeKey = { 'x-api-key': k.body.secret };
  const browser = await portalLogin(server.url, user.email, user.password);
  const stepUp = await portalStepUp(server.url, browser, 'data.delete', user.password);
  portal = { cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'x-step-up-token': stepUp };
}, 60_000);

afterAll(async () => {
  await server?.close();
});

interface Store {
  name: string;
  /** Writes the text; returns the status and a reader of what was stored (when the write was accepted). */
  write(text: string): Promise<{ status: number; headers: Headers; text: string; read?: () => Promise<unknown> }>;
  /** The normalisation the field's schema documents. */
  normalise?: (text: string) => string;
}

const trim = (s: string) => s.trim();

const memoryField = (name: string, body: (t: string) => object, pick: (m: any) => unknown, normalise?: (t: string) => string): Store => ({
  name,
  normalise,
  async write(text) {
    const res = await http(server.url, 'POST', '/memories', { headers: key, body: { content: 'accepted-input', ...body(text) } });
    return { ...res, read: async () => pick((await http(server.url, 'GET', `/memories/${res.body?.memory_id}`, { headers: key })).body) };
  },
});

const stores: Store[] = [
  memoryField(
    'memory content',
    (t) => ({ content: t }),
    (m) => m.content,
  ),
  memoryField(
    'memory title',
    (t) => ({ title: t }),
    (m) => m.title,
  ),
  memoryField(
    'memory agent_id',
    (t) => ({ agent_id: t }),
    (m) => m.agent_id,
  ),
  memoryField(
    'memory tag',
    (t) => ({ tags: [t] }),
    (m) => m.tags?.[0],
    trim,
  ),
  memoryField(
    'memory metadata value',
    (t) => ({ metadata: { note: t } }),
    (m) => m.metadata?.note,
  ),
  // A key is text the client chose too: read back as the only key, so a dropped key shows as undefined.
  memoryField(
    'memory metadata key',
    (t) => ({ metadata: JSON.parse(`{${JSON.stringify(t)}:1}`) }),
    (m) => Object.keys(m.metadata ?? {})[0],
  ),
  {
    name: 'break-glass reason',
    normalise: trim,
    async write(text) {
      const res = await http(server.url, 'POST', '/auth/break-glass/request', {
        headers: bearer(user.accessToken),
        body: { reason: text, duration_minutes: 5 },
      });
      const list = async () => (await http(server.url, 'GET', '/auth/break-glass', { headers: bearer(user.accessToken) })).body.requests;
      return { ...res, read: async () => (await list()).find((r: any) => r.id === res.body?.id)?.reason };
    },
  },
  {
    name: 'tenant name',
    normalise: trim,
    async write(text) {
      const res = await http(server.url, 'POST', '/auth/tenants', { headers: bearer(user.accessToken), body: { name: text } });
      const list = async () => (await http(server.url, 'GET', '/auth/tenants', { headers: bearer(user.accessToken) })).body.tenants;
      return { ...res, read: async () => (await list()).find((t: any) => t.tenant_id === res.body?.tenant_id)?.name };
    },
  },
  {
    name: 'API key name',
    normalise: trim,
    async write(text) {
      const res = await http(server.url, 'POST', '/api-keys', {
        headers: bearer(user.accessToken),
        body: { name: text, scopes: ['memories:read'] },
      });
      const list = async () => (await http(server.url, 'GET', '/api-keys', { headers: bearer(user.accessToken) })).body.keys;
      return { ...res, read: async () => (await list()).find((k: any) => k.key_id === res.body?.key_id)?.name };
    },
  },
];

async function expectKeptOrRefused(store: Store, text: string) {
  const res = await store.write(text);
  if (res.status >= 400) {
    expect(contractViolation(res)).toBeNull();
    return;
  }
  const expected = (store.normalise ?? ((s: string) => s))(text);
  expect(await res.read!(), `${store.name} ${JSON.stringify(text.slice(0, 40))} read back`).toBe(expected);
}

describe('accepted text reads back as written, or is refused with a 4xx', () => {
  for (const store of stores) {
    it(`${store.name}: hostile text`, async () => {
      await fc.assert(
        fc.asyncProperty(
          hostileText.filter((s) => s.length <= 2_000),
          async (text) => expectKeptOrRefused(store, text),
        ),
        { seed: SEED, numRuns: 20, endOnFailure: true },
      );
    }, 30_000);

    for (const [what, text] of [
      ['NUL', 'before\u0000after'],
      ['a lone surrogate', 'before\uD800after'],
      // An own `__proto__` key of parsed JSON: copying it by assignment sets a prototype instead.
      ['__proto__', '__proto__'],
    ] as const) {
      it(`${store.name}: ${what}`, async () => {
        await expectKeptOrRefused(store, text);
      });
    }
  }
});

/** Every number or boolean property of every JSON body in the document, with one valid body around it. */
function typedProperties(): Array<{ method: string; path: string; prop: string; type: string }> {
  const doc = buildOpenApiDocument(appRouter, '', version) as any;
  const out: Array<{ method: string; path: string; prop: string; type: string }> = [];
  for (const op of operationsOf(doc)) {
    for (const [prop, schema] of Object.entries((op.body?.properties ?? {}) as Record<string, JsonSchema>)) {
      const type = schema.type ?? schema.anyOf?.find((s: JsonSchema) => s.type !== 'null')?.type;
      if (type === 'integer' || type === 'number' || type === 'boolean') out.push({ method: op.method, path: op.path, prop, type });
    }
  }
  return out;
}

const validBodies: Record<string, () => Promise<{ url: string; headers: Record<string, string>; body: Record<string, unknown> }>> = {
  'POST /auth/break-glass/request': async () => ({
    url: '/auth/break-glass/request',
    headers: bearer(user.accessToken),
    body: { reason: 'strict types' },
  }),
  'POST /memories/{id}/rollback': async () => {
    const m = await http(server.url, 'POST', '/memories', { headers: key, body: { content: 'strict types' } });
    return { url: `/memories/${m.body.memory_id}/rollback`, headers: key, body: {} };
  },
  'POST /auth/sso/login': async () => ({ url: '/auth/sso/login', headers: {}, body: { provider: 'none' } }),
  'POST /v1/knowledge/{type}': async () => ({
    url: '/v1/knowledge/person',
    headers: knowledgeKey,
    body: { fields: { name: 'Strict Types' } },
  }),
  'PATCH /v1/knowledge/{type}/{id}': async () => {
    const o = await http(server.url, 'POST', '/v1/knowledge/person', { headers: knowledgeKey, body: { fields: { name: 'Strict Types' } } });
    return { url: `/v1/knowledge/person/${o.body.id}`, headers: knowledgeKey, body: {} };
  },
  'PUT /settings/knowledge': async () => ({ url: '/settings/knowledge', headers: knowledgeKey, body: {} }),
  'POST /api/portal/break-glass/request': async () => {
    const browser = await portalLogin(server.url, user.email, user.password);
    return {
      url: '/api/portal/break-glass/request',
      headers: { cookie: browser.cookie, 'x-csrf-token': browser.csrf },
      body: { reason: 'strict types' },
    };
  },
  'POST /api/portal/memories/delete': async () => ({
    url: '/api/portal/memories/delete',
    headers: portal,
    body: { all: true, preview: true },
  }),
  'POST /api/portal/memories/{id}/rollback': async () => {
    const m = await http(server.url, 'POST', '/memories', { headers: key, body: { content: 'strict types' } });
    return { url: `/api/portal/memories/${m.body.memory_id}/rollback`, headers: portal, body: {} };
  },
  'POST /api/portal/retention': async () => {
    retentionBrowser ??= await portalLogin(server.url, user.email, user.password);
    const token = await portalStepUp(server.url, retentionBrowser, 'retention.override', user.password);
    return {
      url: '/api/portal/retention',
      headers: { cookie: retentionBrowser.cookie, 'x-csrf-token': retentionBrowser.csrf, 'x-step-up-token': token },
      body: { deleted_days: null, superseded_days: null },
    };
  },
};
/** The owner's portal session for the retention body, started by the first call that needs it. */
let retentionBrowser: PortalBrowser | undefined;

describe('JSON types are strict', () => {
  const props = typedProperties();
  it('finds the typed body properties', () => {
    expect(props.length).toBeGreaterThan(0);
  });
  for (const { method, path, prop, type } of props) {
    const wrongValues = type === 'boolean' ? ['"true"', '1', '[true]'] : ['true', '"5"', '[1]'];
    it(`${method} ${path} ${prop} (${type}) refuses ${wrongValues.join(', ')}`, async () => {
      const make = validBodies[`${method} ${path}`];
      expect(make, `add a valid body for ${method} ${path} to validBodies`).toBeDefined();
      for (const wrong of wrongValues) {
        const { url, headers, body } = await make!();
        const raw = JSON.stringify(body).replace(/}$/, `${Object.keys(body).length ? ',' : ''}${JSON.stringify(prop)}:${wrong}}`);
        const res = await http(server.url, method, url, { headers: { ...headers, 'content-type': 'application/json' }, raw });
        expect(res.status, `${prop}: ${wrong} → ${res.text.slice(0, 200)}`).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
    });
  }
});
