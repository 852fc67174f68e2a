import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../adapters/rest/openapi-document.js';
import { appRouter } from '../../routers/_app.js';
import { version } from '../../server/version.js';
import { addToTenant, bearer, logIn, signUp, type SignedUpUser, type TenantRole } from '../support/auth.js';
import { createApiKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Knowledge structures managed with a bearer token (users signed up and logged in over HTTP): owners
 * and admins publish and activate, every role reads, members and viewers are refused, the audit log
 * names the user; API keys keep working as before, and a sent key decides over a bearer token.
 */

let server: TestServer;
const users = {} as Record<TenantRole | 'stranger', SignedUpUser>;
let tenantA: string;

/** A small tenant type of its own for each test, so tests never share a version. */
const schemaOf = (extra: string) => ({
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', 'x-knowledge': { identity: true } }, [extra]: { type: 'string' } },
});

const as = (who: TenantRole | 'stranger', tenantId = tenantA) => bearer(users[who].accessToken, tenantId);
const publish = (type: string, headers: Record<string, string>, schemaVersion = '1.0.0') =>
  http(server.url, 'POST', `/v1/knowledge/${type}/structures`, {
    headers,
    body: { schema_version: schemaVersion, schema: schemaOf('colour') },
  });
const activate = (type: string, headers: Record<string, string>, schemaVersion = '1.0.0') =>
  http(server.url, 'POST', `/v1/knowledge/${type}/structures/${schemaVersion}/activate`, { headers, body: {} });
const structures = (type: string, headers: Record<string, string>) =>
  http(server.url, 'GET', `/v1/knowledge/${type}/structures`, { headers });

async function auditEventsOf(structureId: string) {
  const res = await http(server.url, 'GET', '/auth/audit?limit=200', { headers: as('owner') });
  expect(res.status, res.text).toBe(200);
  return (res.body.events as { type: string; actor: unknown; target: { id: string } | null }[]).filter((e) => e.target?.id === structureId);
}

beforeAll(async () => {
  server = await startTestServer();
  for (const who of ['owner', 'admin', 'member', 'viewer', 'stranger'] as const) users[who] = await signUp(server.url);
  tenantA = users.owner.tenantId;
  for (const role of ['admin', 'member', 'viewer'] as const) await addToTenant(server.url, users.owner, users[role], role);
  // The admin's token comes from a real login, not sign-up: the route must take any session of the tenant.
  users.admin.accessToken = (await logIn(server.url, users.admin.email, users.admin.password)).access_token;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('owners and admins manage structures with a bearer token', () => {
  for (const [who, type] of [
    ['owner', 'widget'],
    ['admin', 'gizmo'],
  ] as const) {
    it(`${who}: publish 201 DRAFT, activate 200 ACTIVE, both audited with the user`, async () => {
      const draft = await publish(type, as(who));
      expect(draft.status, draft.text).toBe(201);
      expect(draft.body).toMatchObject({ ks_type: type, schema_version: '1.0.0', status: 'DRAFT' });
      const active = await activate(type, as(who));
      expect(active.status, active.text).toBe(200);
      expect(active.body).toMatchObject({ ks_id: draft.body.ks_id, status: 'ACTIVE' });

      const events = await auditEventsOf(draft.body.ks_id);
      expect(events.map((e) => e.type).sort()).toEqual(['knowledge.structure_activate', 'knowledge.structure_publish']);
      for (const e of events) expect(e.actor).toEqual({ user_id: users[who].userId, key_id: null });
    });
  }
});

describe('members and viewers read structures but may not change them', () => {
  for (const who of ['member', 'viewer'] as const) {
    it(`${who}: list 200; publish and activate 403 FORBIDDEN, the draft untouched`, async () => {
      const type = `${who}_gear`;
      expect((await publish(type, as('owner'))).status).toBe(201);

      const listed = await structures(type, as(who));
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.structures).toEqual([expect.objectContaining({ schema_version: '1.0.0', status: 'DRAFT' })]);

      const published = await publish(type, as(who), '1.1.0');
      expect(published.status, published.text).toBe(403);
      expect(published.body.code).toBe('FORBIDDEN');
      const activated = await activate(type, as(who));
      expect(activated.status, activated.text).toBe(403);
      expect(activated.body.code).toBe('FORBIDDEN');

      const after = await structures(type, as('owner'));
      expect(after.body.structures.map((s: { schema_version: string; status: string }) => [s.schema_version, s.status])).toEqual([
        ['1.0.0', 'DRAFT'],
      ]);
    });
  }
});

describe("another tenant's users and anonymous callers", () => {
  it("a bearer naming a tenant it is not in is 403; in its own tenant, the other tenant's version is 404", async () => {
    const type = 'flange';
    expect((await publish(type, as('owner'))).status).toBe(201);
    for (const res of [
      await structures(type, as('stranger')),
      await publish(type, as('stranger'), '2.0.0'),
      await activate(type, as('stranger')),
    ]) {
      expect(res.status, res.text).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const own = bearer(users.stranger.accessToken);
    const foreignVersion = await activate(type, own);
    expect(foreignVersion.status, foreignVersion.text).toBe(404);
    expect(foreignVersion.body.code).toBe('NOT_FOUND');
    expect((await structures(type, own)).status).toBe(404);
    expect((await structures(type, as('owner'))).body.structures).toEqual([expect.objectContaining({ status: 'DRAFT' })]);
  });

  it('no credentials, or an Authorization header that is not a bearer token, is 401', async () => {
    for (const headers of [{}, { authorization: 'Basic b3duZXI6c2VjcmV0' }] as Record<string, string>[]) {
      for (const res of [await structures('person', headers), await publish('bolt', headers), await activate('person', headers)]) {
        expect(res.status, res.text).toBe(401);
        expect(res.body.code).toBe('UNAUTHENTICATED');
      }
    }
  });

  it('a revoked session is 401', async () => {
    const session = await logIn(server.url, users.owner.email, users.owner.password);
    const revoked = await http(server.url, 'POST', '/auth/revoke', { headers: bearer(session.access_token), body: {} });
    expect(revoked.status, revoked.text).toBe(200);
    const res = await structures('person', bearer(session.access_token));
    expect(res.status, res.text).toBe(401);
  });
});

describe('API keys are judged as before', () => {
  it('a key with knowledge:admin publishes and activates, audited with the key', async () => {
    const secret = await createApiKey(server.url, users.owner, ['knowledge:read', 'knowledge:admin']);
    const keyId = (await http(server.url, 'GET', '/api-keys/current', { headers: { 'x-api-key': secret } })).body.key_id;
    const key = { 'x-api-key': secret };
    const draft = await publish('nut', key);
    expect(draft.status, draft.text).toBe(201);
    expect((await activate('nut', key)).status).toBe(200);
    const events = await auditEventsOf(draft.body.ks_id);
    expect(events).toHaveLength(2);
    for (const e of events) expect(e.actor).toEqual({ user_id: null, key_id: keyId });
  });

  it("a sent key decides even beside an owner's bearer token: without the scope, 403 SCOPE_MISSING", async () => {
    const secret = await createApiKey(server.url, users.owner, ['knowledge:read', 'knowledge:write']);
    const res = await publish('washer', { ...as('owner'), 'x-api-key': secret });
    expect(res.status, res.text).toBe(403);
    expect(res.body.code).toBe('SCOPE_MISSING');
    const bad = await publish('washer', { ...as('owner'), 'x-api-key': 'tmk_not-a-key' });
    expect(bad.status, bad.text).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('the structure routes list both schemes as alternatives; the object routes the key alone', () => {
    const doc = buildOpenApiDocument(appRouter, '', version);
    const securityOf = (path: string, method: 'get' | 'post') => doc.paths?.[path]?.[method]?.security;
    const either = [{ apiKeyAuth: [] }, { bearerAuth: [] }];
    expect(securityOf('/v1/knowledge/{type}/structures', 'get')).toEqual(either);
    expect(securityOf('/v1/knowledge/{type}/structures', 'post')).toEqual(either);
    expect(securityOf('/v1/knowledge/{type}/structures/{version}/activate', 'post')).toEqual(either);
    expect(securityOf('/v1/knowledge/{type}', 'post')).toEqual([{ apiKeyAuth: [] }]);
  });
});
