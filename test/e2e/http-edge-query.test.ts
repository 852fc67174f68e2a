import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp } from '../support/auth.js';
import { createApiKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/** Query keys that name Object.prototype members: a parser that looks keys up on `{}` finds them. */
const prototypeKeys = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

interface Route {
  method: 'GET' | 'DELETE';
  template: string;
  scheme: 'bearerAuth' | 'apiKeyAuth' | 'none';
}

let server: TestServer;
let routes: Route[];
let credentials: Record<Route['scheme'], Record<string, string>>;

beforeAll(async () => {
  server = await startTestServer();
  // Every GET and DELETE operation the service publishes, so a new route cannot escape this suite.
  const doc = (await http(server.url, 'GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
  };
  routes = Object.entries(doc.paths).flatMap(([template, ops]) =>
    (['get', 'delete'] as const)
      .filter((m) => ops[m])
      .map((m) => ({
        method: m.toUpperCase() as Route['method'],
        template,
        scheme: (Object.keys(ops[m]!.security?.[0] ?? {})[0] ?? 'none') as Route['scheme'],
      })),
  );
  const user = await signUp(server.url);
  const key = await createApiKey(server.url, user);
  credentials = { bearerAuth: bearer(user.accessToken), apiKeyAuth: { 'x-api-key': key }, none: {} };
});
afterAll(async () => {
  await server?.close();
});

/** A concrete path for a template: ids that exist nowhere, a version number, a role name. */
function concrete(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'version' ? '1' : name === 'name' ? 'admin' : randomUUID()));
}

function expectHandled(res: { status: number; body: any; text: string }, what: string): void {
  expect(res.status, `${what}: ${res.text}`).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.body, what).toEqual(
      expect.objectContaining({ code: expect.any(String), message: expect.any(String), request_id: expect.any(String) }),
    );
  }
}

describe('REST query strings with keys named like Object.prototype members', () => {
  it('finds the GET and DELETE routes in the OpenAPI document', () => {
    expect(routes.length).toBeGreaterThan(15);
    expect(routes).toContainEqual({ method: 'DELETE', template: '/memories/{id}', scheme: 'apiKeyAuth' });
  });

  it('never answer 5xx on any GET or DELETE route, with or without credentials', async () => {
    // The server runs in this process: nothing a query says may add to Object.prototype either.
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype);
    for (const route of routes) {
      // The key repeated, bracketed, and as the value of a declared parameter.
      const urls = prototypeKeys.map((key) => `${concrete(route.template)}?${key}=1&${key}=2&${key}[x]=3&limit=${key}`);
      const answers = await Promise.all(
        urls.flatMap((url) => [
          http(server.url, route.method, url).then((res) => ({ res, what: `${route.method} ${url} anonymous` })),
          http(server.url, route.method, url, { headers: credentials[route.scheme] }).then((res) => ({
            res,
            what: `${route.method} ${url} authenticated`,
          })),
        ]),
      );
      for (const { res, what } of answers) expectHandled(res, what);
    }
    expect((await http(server.url, 'GET', '/healthz')).status).toBe(200);
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeBefore);
  });

  it('ignores an undeclared prototype-named key and still validates the declared ones', async () => {
    const key = credentials.apiKeyAuth;
    const listed = await http(server.url, 'GET', '/memories?constructor=1&__proto__=x&toString=2&limit=5', { headers: key });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ limit: 5 });
    const invalid = await http(server.url, 'GET', '/memories?limit=constructor', { headers: key });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ code: 'VALIDATION_FAILED', request_id: expect.any(String) });
  });
});
