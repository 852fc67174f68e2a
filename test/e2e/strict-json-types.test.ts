import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/_app.js';
import type { RouteMeta } from '../../server/trpc.js';
import { bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { createApiKey } from '../support/memory-api.js';
import { portalLogin, portalStepUp, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Issue 20, finding 8: JSON number fields accepted `true`, "5" and [1]. trpc-to-openapi marked every
 * number and boolean field of an input schema as coercing on its first REST call, which changed the
 * schema for JSON bodies and /trpc calls too. Now a JSON body or a /trpc input must carry JSON numbers
 * and booleans; only values from the URL (query string, path), which are text, are converted, and
 * strictly (adapters/rest/url-values.ts). The table is derived from the routers: every number and
 * boolean field of every REST route.
 */

type Def = { type: string; innerType?: Schema; shape?: Record<string, Schema> };
type Schema = { _zod: { def: Def }; safeParse(v: unknown): { success: boolean } };

function kindOf(schema: Schema): string {
  let s = schema;
  while (s._zod.def.innerType) s = s._zod.def.innerType;
  return s._zod.def.type;
}

interface Field {
  route: string;
  method: string;
  path: string;
  auth: RouteMeta['auth'];
  stepUp: RouteMeta['stepUp'];
  name: string;
  kind: 'number' | 'boolean';
  inPath: boolean;
  body: boolean;
  valid: string;
  /** null is a value of the field (retention days: null keeps forever), so it is not a wrong type. */
  nullable: boolean;
}

const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { meta?: RouteMeta; inputs: Schema[] } }> } })._def
  .procedures;
const fields: Field[] = [];
for (const [route, p] of Object.entries(procedures)) {
  const meta = p._def.meta;
  const input = p._def.inputs[0];
  if (!meta?.openapi || !input?._zod.def.shape) continue;
  for (const [name, schema] of Object.entries(input._zod.def.shape)) {
    const kind = kindOf(schema);
    if (kind !== 'number' && kind !== 'boolean') continue;
    const valid = kind === 'boolean' ? 'true' : String([1, 0, 0.5].find((n) => schema.safeParse(n).success));
    fields.push({
      route,
      method: meta.openapi.method,
      path: meta.openapi.path,
      auth: meta.auth,
      stepUp: meta.stepUp,
      name,
      kind,
      inPath: meta.openapi.path.includes(`{${name}}`),
      body: meta.openapi.method === 'POST' || meta.openapi.method === 'PUT' || meta.openapi.method === 'PATCH',
      valid,
      nullable: schema.safeParse(null).success,
    });
  }
}

let server: TestServer;
let owner: SignedUpUser;
let apiKey: string;
let browser: PortalBrowser;
/** A step-up token of the portal session for each action a portal route in the table requires. */
const stepUps = new Map<string, string>();

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server.url);
  apiKey = await createApiKey(server.url, owner, [
    'memories:read',
    'memories:write',
    'usage:read',
    'knowledge:read',
    'knowledge:write',
    'knowledge:admin',
  ]);
  browser = await portalLogin(server.url, owner.email, owner.password);
  // data.delete also for portal routes that check a step-up only for some inputs (bulk delete).
  for (const action of new Set(['data.delete', ...fields.flatMap((f) => (f.stepUp ? [f.stepUp] : []))]))
    stepUps.set(action, await portalStepUp(server.url, browser, action, owner.password));
});
afterAll(async () => {
  await server?.close();
});

function credentials(f: Field): Record<string, string> {
  if (f.auth === 'apiKey') return { 'x-api-key': apiKey };
  if (f.auth === 'bearer') return bearer(owner.accessToken);
  if (f.auth !== 'portal') return {};
  const headers: Record<string, string> = { cookie: browser.cookie, 'x-csrf-token': browser.csrf };
  headers['x-step-up-token'] = stepUps.get(f.stepUp ?? 'data.delete')!;
  return headers;
}
const fieldsNamed = (body: { fields?: { field: string }[] } | undefined) => (body?.fields ?? []).map((x) => x.field);

function urlOf(f: Field, value: string | string[] | null): string {
  const values = value === null ? [] : Array.isArray(value) ? value : [value];
  let path = f.path.replace(/\{(\w+)\}/g, (_m, p: string) => (p === f.name ? encodeURIComponent(values[0] ?? '') : 'x'));
  if (!f.inPath && values.length > 0) path += '?' + values.map((v) => `${f.name}=${encodeURIComponent(v)}`).join('&');
  return path;
}

describe('the table covers the routes it should', () => {
  it('finds the number and boolean fields of body, query and path parameters', () => {
    const names = fields.map((f) => `${f.method} ${f.path} ${f.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /auth/break-glass/request duration_minutes',
        'POST /memories/{id}/rollback target_version',
        'GET /memories limit',
        'GET /memories/search k',
        'GET /memories/search min_quality',
        'GET /memories/search include_flagged',
        'GET /memories/{id}/versions/{version} version',
        'GET /auth/audit limit',
      ]),
    );
  });

  it('the OpenAPI document still gives each parameter its JSON type', async () => {
    const doc = (await http(server.url, 'GET', '/openapi.json')).body;
    const types = Object.fromEntries(
      doc.paths['/memories/search'].get.parameters.map((p: { name: string; schema: { type: string } }) => [p.name, p.schema.type]),
    );
    expect(types).toMatchObject({
      k: 'integer',
      offset: 'integer',
      min_quality: 'number',
      include_flagged: 'boolean',
      include_superseded: 'boolean',
    });
    expect(doc.paths['/memories/{id}/rollback'].post.requestBody.content['application/json'].schema.properties.target_version.type).toBe(
      'integer',
    );
  });
});

const bodyFields = fields.filter((f) => f.body && !f.inPath);
const urlFields = fields.filter((f) => !f.body || f.inPath);

describe.each(bodyFields.map((f) => [`${f.method} ${f.path} ${f.name}`, f] as const))('JSON body %s', (_name, f) => {
  const wrong = (f.kind === 'number' ? [true, '5', [1], null, '1e3'] : ['true', 1, [true], null]).filter(
    (w) => !(f.nullable && w === null),
  );
  it.each(wrong.map((w) => [JSON.stringify(w), w]))('refuses %s with 400 naming the field', async (_label, w) => {
    const res = await http(server.url, f.method, urlOf(f, null), { headers: credentials(f), body: { [f.name]: w } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(fieldsNamed(res.body)).toContain(f.name);
  });

  it('takes a JSON value of the right type (the field is not what fails)', async () => {
    const value = f.kind === 'boolean' ? true : Number(f.valid);
    const res = await http(server.url, f.method, urlOf(f, null), { headers: credentials(f), body: { [f.name]: value } });
    expect(fieldsNamed(res.body)).not.toContain(f.name);
    // After a REST call the schema must still be strict for tRPC (the old adapter made it coerce for good).
    const trpc = await http(server.url, 'POST', `/trpc/${f.route}`, {
      headers: credentials(f),
      body: { json: { [f.name]: f.kind === 'number' ? '5' : 'true' } },
    });
    expect(trpc.status).toBe(400);
    expect(JSON.stringify(trpc.body)).toContain(f.name);
  });
});

describe.each(urlFields.map((f) => [`${f.method} ${f.path} ${f.name}`, f] as const))('URL parameter %s', (_name, f) => {
  const wrong: (string | string[])[] =
    f.kind === 'number'
      ? ['5abc', '', ' 5', '+5', '1e3', '0x10', 'true', 'Infinity', ['1', '2']]
      : ['yes', '', 'TRUE', '2', ['true', 'false']];
  it.each(wrong.filter((w) => !(f.inPath && (Array.isArray(w) || w === ''))).map((w) => [JSON.stringify(w), w]))(
    'refuses %s with 400 naming it',
    async (_label, w) => {
      const res = await http(server.url, f.method, urlOf(f, w), { headers: credentials(f) });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(fieldsNamed(res.body)).toContain(f.name);
    },
  );

  it(`takes the decimal spelling ${f.valid}`, async () => {
    const res = await http(server.url, f.method, urlOf(f, f.valid), { headers: credentials(f) });
    expect(fieldsNamed(res.body)).not.toContain(f.name);
    expect(res.status).toBeLessThan(500);
  });

  it('through /trpc, where the input is JSON, takes no string for it', async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { [f.name]: f.valid } }));
    const res = await http(server.url, 'GET', `/trpc/${f.route}?input=${input}`, { headers: credentials(f) });
    expect(res.status).toBe(400);
    expect(res.body.error.json.data.app.fields.map((x: { field: string }) => x.field)).toContain(f.name);
  });
});
