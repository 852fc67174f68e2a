import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../adapters/rest/openapi-document.js';
import { appRouter } from '../../routers/_app.js';
import { apiKeyScopes, type ApiKeyScope } from '../../server/principal.js';
import { builtInRoles, type Permission, type RoleName } from '../../server/services/roles.js';
import type { RouteMeta } from '../../server/trpc.js';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { version } from '../../server/version.js';
import { operationsOf } from '../support/openapi-operations.js';
import { http, startTestServer, type TestServer } from '../support/server.js';
import { portalLogin, type PortalBrowser } from '../support/portal.js';

/**
 * The role × route permission matrix, read from the routers' own metadata (`requirePermission` and
 * `requireScope` record their requirement in the procedure meta): every bearer route answers 403
 * exactly when the caller's role lacks its permission; every API-key route answers 401 without a key
 * and 403 SCOPE_MISSING without its scope; a foreign `X-Tenant-ID` is 403 and another tenant's id 404.
 * The last three hold through `/trpc` too: a procedure is one route whatever the door.
 */

interface Route {
  name: string;
  type: 'query' | 'mutation';
  method: string;
  path: string;
  auth: NonNullable<RouteMeta['auth']>;
  permission?: Permission;
  scope?: ApiKeyScope;
}

const procedures = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: RouteMeta; type: 'query' | 'mutation' } }>,
).map(([name, p]) => ({ name, meta: p._def.meta, type: p._def.type }));
const routes: Route[] = procedures
  .filter((p) => p.meta?.openapi)
  .map(({ name, meta, type }) => ({
    name,
    type,
    method: meta!.openapi!.method,
    path: meta!.openapi!.path,
    auth: meta!.auth ?? 'none',
    permission: meta!.permission,
    scope: meta!.scope,
  }));

/**
 * What each route requires, pinned: a new route, or a changed requirement, fails here until it is
 * written down (and so reviewed). `any member`: every role of the tenant may call it; `session
 * token`: it acts on the token presented, in no tenant; `any key`: every valid API key; `scope X or
 * P`: an API key with scope X, or a bearer token whose role has permission P.
 */
const declared: Record<string, string> = {
  'apiKeys.current': 'any key',
  'apiKeys.checkScope': 'any key',
  'apiKeys.list': 'api_keys:read',
  'apiKeys.create': 'api_keys:manage',
  'apiKeys.rotate': 'api_keys:manage',
  'apiKeys.revoke': 'api_keys:manage',
  'system.info': 'tRPC only, public',
  'auth.signup': 'public',
  'auth.login': 'public',
  'auth.refresh': 'session token',
  'auth.revoke': 'session token',
  'auth.stepUp': 'any member',
  'auth.breakGlassRequest': 'break_glass:request',
  'auth.breakGlassList': 'any member',
  'auth.breakGlassApprove': 'break_glass:approve',
  'auth.breakGlassDeny': 'break_glass:approve',
  'auth.auditList': 'audit:read',
  'auth.auditVerify': 'audit:read',
  'sso.providers': 'public',
  'sso.login': 'public',
  'sso.callback': 'public',
  'tenants.list': 'any member',
  'tenants.create': 'any member',
  'tenants.primary': 'any member',
  'tenants.members': 'members:read',
  'tenants.invite': 'members:manage',
  'tenants.invitations': 'any member',
  'tenants.tenantInvitations': 'members:manage',
  'tenants.cancelInvitation': 'members:manage',
  'tenants.acceptInvitation': 'any member',
  'tenants.declineInvitation': 'any member',
  'tenants.changeRole': 'members:manage',
  'tenants.removeMember': 'any member',
  'roles.list': 'roles:read',
  'roles.get': 'roles:read',
  'search.memories': 'scope memories:read',
  'memories.list': 'scope memories:read',
  'memories.create': 'scope memories:write',
  'memories.get': 'scope memories:read',
  'memories.update': 'scope memories:write',
  'memories.delete': 'scope memories:write',
  'memories.versions': 'scope memories:read',
  'memories.version': 'scope memories:read',
  'memories.rollback': 'scope memories:write',
  'memories.settings': 'memories:read',
  'memories.updateSettings': 'tenant:manage',
  'usage.get': 'scope usage:read',
  'knowledge.structures': 'scope knowledge:read or knowledge:read',
  'knowledge.publishStructure': 'scope knowledge:admin or knowledge:admin',
  'knowledge.activateStructure': 'scope knowledge:admin or knowledge:admin',
  'knowledge.create': 'scope knowledge:write',
  'knowledge.list': 'scope knowledge:read',
  'knowledge.get': 'scope knowledge:read',
  'knowledge.update': 'scope knowledge:write',
  'knowledge.delete': 'scope knowledge:write',
  'knowledge.enrichmentLog': 'scope knowledge:read',
  'knowledge.enrich': 'scope knowledge:write',
  'knowledgeSettings.get': 'scope knowledge:read',
  'knowledgeSettings.update': 'scope knowledge:admin',
  'portal.login': 'public',
  'portal.session': 'portal session',
  'portal.logout': 'portal session',
  'portal.ssoLogin': 'public',
  'portal.ssoCallback': 'public',
  'portal.stepUp': 'portal session',
  'portal.knowledgeTypes': 'portal knowledge:read',
  'portal.knowledgeList': 'portal knowledge:read',
  'portal.knowledgeGet': 'portal knowledge:read',
  'portal.knowledgeLog': 'portal knowledge:read',
  'portal.knowledgeEnrich': 'portal knowledge:write',
  'portal.members': 'portal members:read',
  'portal.invite': 'portal members:manage',
  'portal.changeRole': 'portal members:manage',
  'portal.removeMember': 'portal session',
  'portal.invitations': 'portal members:manage',
  'portal.cancelInvitation': 'portal members:manage',
  'portal.roles': 'portal roles:read',
  'portal.breakGlassList': 'portal session',
  'portal.breakGlassRequest': 'portal break_glass:request',
  'portal.breakGlassApprove': 'portal break_glass:approve',
  'portal.breakGlassDeny': 'portal break_glass:approve',
  'portal.memoriesDelete': 'portal data:delete, step-up data.delete',
  'portal.memoriesList': 'portal memories:read',
  'portal.memoryGet': 'portal memories:read',
  'portal.memoryVersions': 'portal memories:read',
  'portal.memoryRollback': 'portal memories:write',
  'portal.memorySearch': 'portal memories:read',
  'portal.dashboard': 'portal session',
  'portal.onboarding': 'portal session',
  'portal.completeOnboardingStep': 'portal memories:write',
  'portal.listCredentials': 'portal api_keys:read',
  'portal.createCredential': 'portal api_keys:manage',
  'portal.rotateCredential': 'portal api_keys:manage',
  'portal.revokeCredential': 'portal api_keys:manage',
  'portal.scopes': 'portal session',
  'portal.tenants': 'portal session',
  'portal.createTenant': 'portal session',
  'portal.audit': 'portal audit:read',
  'portal.auditVerify': 'portal audit:read',
  'portal.retention': 'portal tenant:read',
  'portal.setRetention': 'portal retention:override, step-up retention.override',
  'portal.export': 'portal data:export, step-up data.export',
};

function requirementOf(p: (typeof procedures)[number]): string {
  const meta = p.meta;
  if (!meta?.openapi) return meta?.permission || meta?.scope ? 'tRPC only, protected' : 'tRPC only, public';
  if (meta.auth === 'apiKeyOrBearer') return `scope ${meta.scope} or ${meta.permission}`;
  if (meta.auth === 'portal') {
    const stepUp = meta.stepUp ? `, step-up ${meta.stepUp}` : '';
    return meta.permission ? `portal ${meta.permission}${stepUp}` : 'portal session';
  }
  if (meta.permission) return meta.permission;
  if (meta.scope) return `scope ${meta.scope}`;
  if (meta.auth === 'apiKey') return 'any key';
  if (meta.auth === 'bearer') return sessionTokenRoutes.has(p.name) ? 'session token' : 'any member';
  return 'public';
}

/** These take a refresh or access token as their input; they run in no tenant and under no role. */
const sessionTokenRoutes = new Set(['auth.refresh', 'auth.revoke']);

type Actor = RoleName | 'breakGlass';
const actors: Actor[] = ['owner', 'admin', 'member', 'viewer', 'breakGlass'];

/**
 * What an approved grant never confers: managing people, the tenant's settings, deciding grants and
 * managing API keys (which outlive the grant) follow the holder's own role. Written here, not
 * imported, so the test does not read the rule it checks.
 */
const grantNeverConfers: Permission[] = [
  'tenant:manage',
  'members:manage',
  'break_glass:approve',
  'api_keys:manage',
  'api_keys:manage_all',
];
const permissionsOf = (role: RoleName) => new Set(builtInRoles.find((r) => r.name === role)!.permissions);
/** The grant holder is a member; the grant adds the admin role's permissions, less those above. */
const breakGlassHolderRole: RoleName = 'member';

function effectivePermissions(actor: Actor): Set<Permission> {
  if (actor !== 'breakGlass') return permissionsOf(actor);
  const granted = [...permissionsOf('admin')].filter((p) => !grantNeverConfers.includes(p));
  return new Set([...permissionsOf(breakGlassHolderRole), ...granted]);
}

/**
 * Routes acting on a key another user created (the fixture's key is the owner's) or removing another
 * member (the fixture's target): owners and admins only, by their own role.
 */
const othersKeyRoutes = new Set(['apiKeys.rotate', 'apiKeys.revoke', 'tenants.removeMember']);

function deniedFor(actor: Actor, route: Route): boolean {
  if (route.permission && !effectivePermissions(actor).has(route.permission)) return true;
  const ownRole = actor === 'breakGlass' ? breakGlassHolderRole : actor;
  return othersKeyRoutes.has(route.name) && ownRole !== 'owner' && ownRole !== 'admin';
}

let server: TestServer;
const users = {} as Record<Actor | 'target' | 'stranger', SignedUpUser>;
/** Tenant A is the owner's; the stranger's tenant B holds the foreign resources. */
let tenantA: string;
const fixture = {} as {
  ownerKeyId: string;
  pendingRequestId: string;
  invitationId: string;
  allScopesKey: string;
  keysWithout: Record<ApiKeyScope, string>;
  keysWith: Record<ApiKeyScope, string>;
  memoryId: string;
  knowledgeId: string;
};
let ownerPortal: PortalBrowser;
/** The owner's credential for a route of the owner's tenant: a key, the portal cookie (and CSRF token), or a bearer token. */
const ownerHeaders = (route: Route): Record<string, string> =>
  route.auth === 'apiKey'
    ? { 'x-api-key': fixture.allScopesKey }
    : route.auth === 'portal'
      ? { cookie: ownerPortal.cookie, 'x-csrf-token': ownerPortal.csrf, 'x-tenant-id': tenantA }
      : bearer(users.owner.accessToken, tenantA);
const foreign = {} as { keyId: string; keySecret: string; requestId: string; memoryId: string; invitationId: string; knowledgeId: string };

async function must(res: Promise<{ status: number; body: any; text: string }>, status: number) {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
  return r.body;
}

/** Adds a user to the owner's tenant by invitation and acceptance (with the step-up a promotion needs). */
const addMember = (user: SignedUpUser, role: RoleName) => addToTenant(server.url, users.owner, user, role, tenantA);

async function createKey(token: string, tenantId: string, scopes: readonly ApiKeyScope[]) {
  return (await must(
    http(server.url, 'POST', '/api-keys', { headers: bearer(token, tenantId), body: { name: 'matrix', scopes } }),
    201,
  )) as { key_id: string; secret: string };
}

beforeAll(async () => {
  server = await startTestServer();
  for (const who of ['owner', 'admin', 'member', 'viewer', 'breakGlass', 'target', 'stranger'] as const)
    users[who] = await signUp(server.url);
  tenantA = users.owner.tenantId;
  ownerPortal = await portalLogin(server.url, users.owner.email, users.owner.password);
  await addMember(users.admin, 'admin');
  await addMember(users.member, 'member');
  await addMember(users.viewer, 'viewer');
  await addMember(users.breakGlass, breakGlassHolderRole);
  // The target of role changes, and the requester of the grant the matrix decides (never an actor: deciding it grants them).
  await addMember(users.target, 'member');
  const grant = await must(
    http(server.url, 'POST', '/auth/break-glass/request', {
      headers: bearer(users.breakGlass.accessToken, tenantA),
      body: { reason: 'matrix', duration_minutes: 60 },
    }),
    201,
  );
  await must(http(server.url, 'POST', `/auth/break-glass/${grant.id}/approve`, { headers: bearer(users.owner.accessToken, tenantA) }), 200);
  const pending = await must(
    http(server.url, 'POST', '/auth/break-glass/request', {
      headers: bearer(users.target.accessToken, tenantA),
      body: { reason: 'to decide', duration_minutes: 5 },
    }),
    201,
  );
  fixture.pendingRequestId = pending.id;
  fixture.ownerKeyId = (await createKey(users.owner.accessToken, tenantA, ['memories:read'])).key_id;
  const invitation = { email: `pending-${randomUUID()}@example.test`, role: 'viewer' };
  fixture.invitationId = (
    await must(http(server.url, 'POST', '/auth/members', { headers: bearer(users.owner.accessToken, tenantA), body: invitation }), 202)
  ).invitation_id;
  fixture.allScopesKey = (await createKey(users.owner.accessToken, tenantA, apiKeyScopes)).secret;
  fixture.keysWithout = {} as Record<ApiKeyScope, string>;
  fixture.keysWith = {} as Record<ApiKeyScope, string>;
  for (const scope of apiKeyScopes) {
    fixture.keysWithout[scope] = (
      await createKey(
        users.owner.accessToken,
        tenantA,
        apiKeyScopes.filter((s) => s !== scope),
      )
    ).secret;
    fixture.keysWith[scope] = (await createKey(users.owner.accessToken, tenantA, [scope])).secret;
  }
  fixture.memoryId = (
    await must(
      http(server.url, 'POST', '/memories', { headers: { 'x-api-key': fixture.allScopesKey }, body: { content: 'tenant A memory' } }),
      202,
    )
  ).memory_id;

  const b = users.stranger;
  const bKey = await createKey(b.accessToken, b.tenantId, apiKeyScopes);
  Object.assign(foreign, { keyId: bKey.key_id, keySecret: bKey.secret });
  foreign.invitationId = (
    await must(
      http(server.url, 'POST', '/auth/members', {
        headers: bearer(b.accessToken),
        body: { email: `b-${randomUUID()}@example.test`, role: 'viewer' },
      }),
      202,
    )
  ).invitation_id;
  foreign.requestId = (
    await must(
      http(server.url, 'POST', '/auth/break-glass/request', {
        headers: bearer(b.accessToken),
        body: { reason: 'tenant B', duration_minutes: 5 },
      }),
      201,
    )
  ).id;
  foreign.memoryId = (
    await must(http(server.url, 'POST', '/memories', { headers: { 'x-api-key': bKey.secret }, body: { content: 'tenant B memory' } }), 202)
  ).memory_id;
  fixture.knowledgeId = (
    await must(
      http(server.url, 'POST', '/v1/knowledge/person', {
        headers: { 'x-api-key': fixture.allScopesKey },
        body: { fields: { name: 'Tenant A' } },
      }),
      201,
    )
  ).id;
  foreign.knowledgeId = (
    await must(
      http(server.url, 'POST', '/v1/knowledge/person', { headers: { 'x-api-key': bKey.secret }, body: { fields: { name: 'Tenant B' } } }),
      201,
    )
  ).id;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** The path parameters `requestFor` fills: a route with another one fails the guard below until it is added there. */
const filledParameters = ['invitation_id', 'id', 'user_id', 'name', 'version', 'type'];

/** A request each route accepts as valid (when the caller may make it), so a 403 can only mean authorization. */
function requestFor(
  route: Route,
  actor: SignedUpUser,
  ids: { keyId: string; requestId: string; memberId: string; memoryId: string; invitationId: string; knowledgeId: string },
) {
  const idOf = (p: string) =>
    p.startsWith('/api-keys') || p.startsWith('/api/portal/credentials')
      ? ids.keyId
      : p.startsWith('/auth/break-glass') || p.startsWith('/api/portal/break-glass')
        ? ids.requestId
        : p.startsWith('/v1/knowledge') || p.startsWith('/api/portal/knowledge')
          ? ids.knowledgeId
          : p.startsWith('/api/portal/invitations')
            ? ids.invitationId
            : ids.memoryId;
  const path = route.path
    .replace('{invitation_id}', ids.invitationId)
    .replace('{type}', 'person')
    .replace('{id}', idOf(route.path))
    .replace('{user_id}', ids.memberId)
    .replace('{name}', 'viewer')
    .replace('{version}', '1');
  const bodies: Record<string, unknown> = {
    'apiKeys.create': { name: 'matrix', scopes: ['memories:read'] },
    'auth.stepUp': { action: 'data.export', password: actor.password },
    'auth.breakGlassRequest': { reason: 'matrix', duration_minutes: 5 },
    'tenants.create': { name: 'matrix' },
    'tenants.invite': { email: `nobody-${randomUUID()}@example.test`, role: 'viewer' },
    'tenants.changeRole': { role: 'viewer' },
    'portal.changeRole': { role: 'viewer' },
    'memories.updateSettings': { contradiction_policy: 'NEWER_WINS' },
    'memories.create': { content: 'matrix' },
    'memories.update': { content: 'matrix' },
    'memories.rollback': { target_version: 1 },
    'portal.memoryRollback': { target_version: 1 },
    'knowledge.create': { fields: { name: 'Matrix Person' } },
    'knowledge.update': { fields: { job_title: 'tester' } },
    'knowledgeSettings.update': { web_enrichment: false },
    'knowledge.publishStructure': {
      schema_version: '9.0.0',
      schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', 'x-knowledge': { identity: true } } } },
    },
  };
  const query: Record<string, string> = { 'search.memories': '?q=matrix', 'apiKeys.checkScope': '?scope=memories:read' };
  return { url: path + (query[route.name] ?? ''), body: route.method === 'GET' ? undefined : (bodies[route.name] ?? {}) };
}

const ownIds = () => ({
  keyId: fixture.ownerKeyId,
  requestId: fixture.pendingRequestId,
  memberId: users.target.userId,
  memoryId: fixture.memoryId,
  invitationId: fixture.invitationId,
  knowledgeId: fixture.knowledgeId,
});

/** Routes taking either credential are in both lists: each credential is judged as on the routes taking only it. */
const bearerRoutes = routes.filter((r) => (r.auth === 'bearer' || r.auth === 'apiKeyOrBearer') && !sessionTokenRoutes.has(r.name));
const apiKeyRoutes = routes.filter((r) => r.auth === 'apiKey' || r.auth === 'apiKeyOrBearer');

describe('every route is in the matrix', () => {
  it('each procedure declares its requirement, and the pinned table agrees', () => {
    expect(Object.fromEntries(procedures.map((p) => [p.name, requirementOf(p)]))).toEqual(declared);
  });

  it('every path parameter is one the matrix fills, and every exception names a route', () => {
    for (const r of routes)
      for (const [, param] of r.path.matchAll(/\{([^}]+)\}/g)) expect(filledParameters, `${r.name}: {${param}}`).toContain(param);
    const names = new Set(routes.map((r) => r.name));
    for (const name of [...sessionTokenRoutes, ...othersKeyRoutes, ...notTenantOwned]) expect(names, name).toContain(name);
  });

  it('every REST route names its credential', () => {
    for (const r of routes) expect(['none', 'bearer', 'apiKey', 'apiKeyOrBearer', 'portal'], r.name).toContain(r.auth);
  });
});

describe('bearer routes: 403 exactly when the role lacks the permission', () => {
  for (const route of bearerRoutes) {
    for (const actor of actors) {
      const denied = deniedFor(actor, route);
      it(`${actor} → ${route.method} ${route.path}: ${denied ? '403' : 'allowed'}`, async () => {
        const { url, body } = requestFor(route, users[actor], ownIds());
        const res = await http(server.url, route.method, url, { headers: bearer(users[actor].accessToken, tenantA), body });
        if (denied) {
          expect(res.status, res.text.slice(0, 300)).toBe(403);
          expect(res.body.code).toBe('FORBIDDEN');
        } else {
          // A step-up demand is not a denial by role: the role may act once it re-authenticates.
          expect(res.status === 401 || (res.status === 403 && res.body.code !== 'STEP_UP_REQUIRED'), res.text.slice(0, 300)).toBe(false);
        }
      });
    }
  }
});

describe('a foreign X-Tenant-ID is refused on every bearer route', () => {
  for (const route of bearerRoutes) {
    it(`${route.method} ${route.path}`, async () => {
      const { url, body } = requestFor(route, users.owner, ownIds());
      const res = await http(server.url, route.method, url, { headers: bearer(users.owner.accessToken, users.stranger.tenantId), body });
      expect(res.status, res.text.slice(0, 300)).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    });
  }
});

describe('API-key routes: 401 without a key, 403 SCOPE_MISSING without the scope, allowed with it', () => {
  for (const route of apiKeyRoutes) {
    it(`${route.method} ${route.path}`, async () => {
      const { url, body } = requestFor(route, users.owner, ownIds());
      const anonymous = await http(server.url, route.method, url, { body });
      expect(anonymous.status, anonymous.text.slice(0, 300)).toBe(401);
      expect(anonymous.body.code).toBe('UNAUTHENTICATED');
      if (route.scope) {
        const without = await http(server.url, route.method, url, { headers: { 'x-api-key': fixture.keysWithout[route.scope] }, body });
        expect(without.status, without.text.slice(0, 300)).toBe(403);
        expect(without.body.code).toBe('SCOPE_MISSING');
      }
      const withScope = await http(server.url, route.method, url, {
        headers: { 'x-api-key': route.scope ? fixture.keysWith[route.scope] : fixture.allScopesKey },
        body,
      });
      expect([401, 403], withScope.text.slice(0, 300)).not.toContain(withScope.status);
    });
  }
});

/** Routes whose path parameter names no tenant's resource. */
const notTenantOwned = new Set([
  'roles.get',
  // `{type}` and `{version}` name a knowledge type and a structure version, which every tenant has of its own.
  'knowledge.structures',
  'knowledge.publishStructure',
  'knowledge.activateStructure',
  'knowledge.create',
  'knowledge.list',
]);

describe("another tenant's id is 404 on every {id} route, and the resource is untouched", () => {
  const idRoutes = routes.filter((r) => r.path.includes('{') && !notTenantOwned.has(r.name) && r.auth !== 'none');
  it('covers the id routes of every credential', () => {
    expect(['bearer', 'apiKey', 'portal'].every((auth) => idRoutes.some((r) => r.auth === auth))).toBe(true);
  });
  for (const route of idRoutes) {
    it(`${route.method} ${route.path}`, async () => {
      const ids = {
        keyId: foreign.keyId,
        requestId: foreign.requestId,
        memberId: users.stranger.userId,
        memoryId: foreign.memoryId,
        invitationId: foreign.invitationId,
        knowledgeId: foreign.knowledgeId,
      };
      const { url, body } = requestFor(route, users.owner, ids);
      const headers = ownerHeaders(route);
      const res = await http(server.url, route.method, url, { headers, body });
      expect(res.status, res.text.slice(0, 300)).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');

      const b = users.stranger;
      expect((await http(server.url, 'GET', '/api-keys/current', { headers: { 'x-api-key': foreign.keySecret } })).status).toBe(200);
      const memory = await http(server.url, 'GET', `/memories/${foreign.memoryId}`, { headers: { 'x-api-key': foreign.keySecret } });
      expect(memory.status).toBe(200);
      expect(memory.body.content).toBe('tenant B memory');
      expect(memory.body.version).toBe(1);
      const person = await http(server.url, 'GET', `/v1/knowledge/person/${foreign.knowledgeId}`, {
        headers: { 'x-api-key': foreign.keySecret },
      });
      expect(person.status).toBe(200);
      expect(person.body.fields).toEqual({ name: expect.objectContaining({ value: 'Tenant B' }) });
      const requests = await http(server.url, 'GET', '/auth/break-glass', { headers: bearer(b.accessToken) });
      expect(requests.body.requests.find((r: any) => r.id === foreign.requestId)?.status).toBe('pending');
      const members = await http(server.url, 'GET', '/auth/members', { headers: bearer(b.accessToken) });
      expect(members.body.members).toEqual([expect.objectContaining({ user_id: b.userId, role: 'owner' })]);
      const invitations = await http(server.url, 'GET', '/auth/members/invitations', { headers: bearer(b.accessToken) });
      expect(invitations.body.invitations.map((i: { invitation_id: string }) => i.invitation_id)).toEqual([foreign.invitationId]);
    });
  }
});

/** The input of a route's procedure for `/trpc`: its REST path and query values and body in one object, typed as the document says. */
const parameterTypes = new Map(
  operationsOf(buildOpenApiDocument(appRouter, '', version) as never).map((op) => [
    `${op.method} ${op.path}`,
    new Map(op.params.map((p) => [p.name, p.schema.type as string | undefined])),
  ]),
);

function trpcInput(route: Route, actor: SignedUpUser, ids: Parameters<typeof requestFor>[2]): Record<string, unknown> {
  const { url, body } = requestFor(route, actor, ids);
  const [pathPart = '', queryPart = ''] = url.split('?');
  const types = parameterTypes.get(`${route.method} ${route.path}`) ?? new Map<string, string | undefined>();
  const typed = (name: string, value: string) => (types.get(name) === 'integer' || types.get(name) === 'number' ? Number(value) : value);
  const input: Record<string, unknown> = { ...((body as Record<string, unknown> | undefined) ?? {}) };
  const actual = pathPart.split('/');
  route.path.split('/').forEach((segment, i) => {
    const param = /^\{(.+)\}$/.exec(segment)?.[1];
    if (param) input[param] = typed(param, decodeURIComponent(actual[i]!));
  });
  for (const [name, value] of new URLSearchParams(queryPart)) input[name] = typed(name, value);
  return input;
}

/** Calls the route's procedure through `/trpc` (superjson envelope); the status and the catalogued error code. */
async function viaTrpc(route: Route, input: Record<string, unknown>, headers: Record<string, string>) {
  const envelope = JSON.stringify({ json: input });
  const res =
    route.type === 'query'
      ? await fetch(`${server.url}/trpc/${route.name}?input=${encodeURIComponent(envelope)}`, { headers })
      : await fetch(`${server.url}/trpc/${route.name}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: envelope,
        });
  const text = await res.text();
  let code: string | undefined;
  try {
    code = JSON.parse(text)?.error?.json?.data?.app?.code;
  } catch {
    code = undefined;
  }
  return { status: res.status, code, text: text.slice(0, 300) };
}

describe('the same through /trpc', () => {
  for (const route of apiKeyRoutes) {
    it(`API key: ${route.name} is 401 without a key${route.scope ? ' and 403 SCOPE_MISSING without its scope' : ''}`, async () => {
      const input = trpcInput(route, users.owner, ownIds());
      expect(await viaTrpc(route, input, {})).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
      if (route.scope)
        expect(await viaTrpc(route, input, { 'x-api-key': fixture.keysWithout[route.scope] })).toMatchObject({
          status: 403,
          code: 'SCOPE_MISSING',
        });
    });
  }

  for (const route of bearerRoutes) {
    it(`bearer: ${route.name} refuses a foreign X-Tenant-ID`, async () => {
      const input = trpcInput(route, users.owner, ownIds());
      expect(await viaTrpc(route, input, bearer(users.owner.accessToken, users.stranger.tenantId))).toMatchObject({
        status: 403,
        code: 'FORBIDDEN',
      });
    });
  }

  for (const route of routes.filter((r) => r.path.includes('{') && !notTenantOwned.has(r.name) && r.auth !== 'none')) {
    it(`{id}: ${route.name} is 404 for another tenant's id`, async () => {
      const ids = {
        keyId: foreign.keyId,
        requestId: foreign.requestId,
        memberId: users.stranger.userId,
        memoryId: foreign.memoryId,
        invitationId: foreign.invitationId,
        knowledgeId: foreign.knowledgeId,
      };
      const headers = ownerHeaders(route);
      expect(await viaTrpc(route, trpcInput(route, users.owner, ids), headers)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    });
  }
});
