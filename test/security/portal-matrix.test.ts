import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/_app.js';
import { builtInRoles, type RoleName } from '../../server/services/roles.js';
import type { RouteMeta } from '../../server/trpc.js';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { portalCall, portalLogin, type PortalBrowser } from '../support/portal.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Every portal route, read from the routers' meta (`auth: 'portal'`), behind the same doors: the cookie
 * and nothing else (no cookie, a bearer token or an API key: 401), refused from another site, a mutation
 * without the session's CSRF token 403 CSRF_FAILED, a tenant that is not the user's or an `X-User-ID`
 * that is not theirs 403, and 403 FORBIDDEN exactly when the role lacks the route's permission.
 *
 * Requests carry junk ids and empty bodies: every check here happens before the input is read, and a
 * caller that passes them acts on nothing (400 or 404), so the suite changes no state it reads.
 */

interface PortalRoute {
  name: string;
  type: 'query' | 'mutation';
  method: string;
  path: string;
  permission?: string;
}

const routes: PortalRoute[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { meta?: RouteMeta; type: 'query' | 'mutation' } }>,
)
  .filter(([, p]) => p._def.meta?.auth === 'portal' && p._def.meta.openapi)
  .map(([name, p]) => ({
    name,
    type: p._def.type,
    method: p._def.meta!.openapi!.method,
    path: p._def.meta!.openapi!.path,
    ...(p._def.meta!.permission ? { permission: p._def.meta!.permission } : {}),
  }));

/** Path parameters get values of the right form that name nothing. */
const urlOf = (route: PortalRoute) =>
  route.path
    .replace(/\{type\}/g, 'person')
    .replace(/\{version\}/g, '1')
    .replace(/\{[^}]+\}/g, randomUUID());

const roles: RoleName[] = ['owner', 'admin', 'member', 'viewer'];
const has = (role: RoleName, permission: string) => builtInRoles.find((r) => r.name === role)!.permissions.includes(permission as never);

let server: TestServer;
const users = {} as Record<RoleName | 'stranger', SignedUpUser>;
const browsers = {} as Record<RoleName, PortalBrowser>;
let apiKey: string;

beforeAll(async () => {
  server = await startTestServer();
  for (const who of [...roles, 'stranger'] as const) users[who] = await signUp(server.url);
  for (const role of roles.filter((r) => r !== 'owner')) await addToTenant(server.url, users.owner, users[role], role);
  for (const role of roles) browsers[role] = await portalLogin(server.url, users[role].email, users[role].password);
  const key = await http(server.url, 'POST', '/api-keys', {
    headers: bearer(users.owner.accessToken),
    body: { name: 'matrix', scopes: ['memories:read', 'usage:read'] },
  });
  apiKey = key.body.secret;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const tenantA = () => users.owner.tenantId;
const call = (route: PortalRoute, role: RoleName, headers: Record<string, string> = {}) =>
  portalCall(server.url, browsers[role], route.method, urlOf(route), {
    tenantId: tenantA(),
    headers,
    ...(route.method === 'GET' ? {} : { body: {} }),
  });

it('there are portal routes, and each is on a path under /api/portal', () => {
  expect(routes.length).toBeGreaterThan(0);
  for (const r of routes) expect(r.path, r.name).toMatch(/^\/api\/portal\//);
});

it('every other route under /api/portal is one of the sign-in routes, which open no session by themselves', () => {
  const others = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: RouteMeta } }>)
    .filter(([, p]) => p._def.meta?.openapi?.path.startsWith('/api/portal/') && p._def.meta.auth !== 'portal')
    .map(([name]) => name)
    .sort();
  expect(others).toEqual(['portal.login', 'portal.ssoCallback', 'portal.ssoLogin']);
});

it('a mutation is exactly a route of another method than GET (CSRF follows either)', () => {
  for (const r of routes) expect(r.type === 'mutation', `${r.name}: ${r.method}`).toBe(r.method !== 'GET');
});

describe('the cookie is the only credential', () => {
  for (const route of routes) {
    it(`${route.method} ${route.path}: 401 without it, with a bearer token, with an API key`, async () => {
      const body = route.method === 'GET' ? undefined : {};
      const attempts: Record<string, string>[] = [{}, bearer(users.owner.accessToken, tenantA()), { 'x-api-key': apiKey }];
      for (const headers of attempts) {
        const res = await http(server.url, route.method, urlOf(route), { headers, body });
        expect(res.status, `${JSON.stringify(Object.keys(headers))}: ${res.text.slice(0, 200)}`).toBe(401);
        expect(res.body.code).toBe('UNAUTHENTICATED');
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
    });
  }
});

describe('refused from another site, and without the CSRF token on a mutation', () => {
  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      const foreignSites: Record<string, string>[] = [
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' }, // a sibling subdomain is another site to us
        { origin: 'https://evil.example' },
        { origin: 'null' }, // sandboxed frames and some redirects
        { origin: server.url.replace('127.0.0.1', 'localhost') }, // same host, another origin
      ];
      for (const headers of foreignSites) {
        const cross = await call(route, 'owner', headers);
        expect(cross.status, `${JSON.stringify(headers)}: ${cross.text.slice(0, 200)}`).toBe(403);
        expect(cross.body.code).toBe('CSRF_FAILED');
      }
      if (route.type !== 'mutation') return;
      for (const token of ['', 'not-the-token', browsers.viewer.csrf]) {
        const res = await call(route, 'owner', { 'x-csrf-token': token });
        expect(res.status, `${token}: ${res.text.slice(0, 200)}`).toBe(403);
        expect(res.body.code).toBe('CSRF_FAILED');
      }
    });
  }
});

describe("a tenant that is not the user's, or another user's id, is refused", () => {
  for (const route of routes) {
    it(`${route.method} ${route.path}`, async () => {
      const foreign = await call(route, 'owner', { 'x-tenant-id': users.stranger.tenantId });
      expect(foreign.status, foreign.text.slice(0, 200)).toBe(403);
      expect(foreign.body.code).toBe('FORBIDDEN');
      const impostor = await call(route, 'owner', { 'x-user-id': users.stranger.userId });
      expect(impostor.status, impostor.text.slice(0, 200)).toBe(403);
      expect(impostor.body.code).toBe('FORBIDDEN');
    });
  }
});

describe.runIf(routes.some((r) => r.permission !== undefined))("403 exactly when the role lacks the route's permission", () => {
  for (const route of routes.filter((r) => r.permission !== undefined)) {
    for (const role of roles) {
      const denied = !has(role, route.permission!);
      it(`${role} → ${route.method} ${route.path} (${route.permission}): ${denied ? '403' : 'allowed'}`, async () => {
        const res = await call(route, role);
        if (denied) {
          expect(res.status, res.text.slice(0, 200)).toBe(403);
          expect(res.body.code).toBe('FORBIDDEN');
        } else {
          expect(res.status === 401 || (res.status === 403 && res.body.code === 'FORBIDDEN'), res.text.slice(0, 200)).toBe(false);
        }
      });
    }
  }
});

describe('the same doors on /trpc, where the web portal calls them', () => {
  const trpcCall = (route: PortalRoute, headers: Record<string, string>) => {
    const common = { cookie: browsers.owner.cookie, 'x-tenant-id': tenantA(), ...headers };
    return route.type === 'query'
      ? fetch(`${server.url}/trpc/${route.name}?input=${encodeURIComponent('{"json":{}}')}`, { headers: common })
      : fetch(`${server.url}/trpc/${route.name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...common },
          body: '{"json":{}}',
        });
  };
  for (const route of routes) {
    it(`${route.name}`, async () => {
      const anonymous = await trpcCall(route, { cookie: '' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('cache-control')).toBe('no-store');
      expect((await trpcCall(route, { 'sec-fetch-site': 'cross-site', 'x-csrf-token': browsers.owner.csrf })).status).toBe(403);
      expect((await trpcCall(route, { 'x-tenant-id': users.stranger.tenantId, 'x-csrf-token': browsers.owner.csrf })).status).toBe(403);
      if (route.type === 'mutation') expect((await trpcCall(route, {})).status).toBe(403);
    });
  }
});

describe('a suspended tenant', () => {
  /** The routes about the signed-in user rather than a tenant: they let members of a suspended tenant move on. */
  const userRoutes = ['portal.createTenant', 'portal.session', 'portal.tenants'];
  it("refuses every tenant route with 403 TENANT_SUSPENDED; only the user's own routes answer", async () => {
    const owner = await signUp(server.url);
    const browser = await portalLogin(server.url, owner.email, owner.password);
    await server.services.tenants.setStatus(owner.tenantId, 'suspended', { ip: null, userAgent: null });
    const answered: string[] = [];
    for (const route of routes.filter((r) => r.name !== 'portal.logout')) {
      const res = await portalCall(server.url, browser, route.method, urlOf(route), {
        tenantId: owner.tenantId,
        ...(route.method === 'GET' ? {} : { body: {} }),
      });
      if (res.body?.code === 'TENANT_SUSPENDED') expect(res.status).toBe(403);
      else answered.push(route.name);
    }
    expect(answered.sort()).toEqual(userRoutes);
    expect((await portalCall(server.url, browser, 'POST', '/api/portal/logout', { tenantId: owner.tenantId })).status).toBe(200);
  });
});
