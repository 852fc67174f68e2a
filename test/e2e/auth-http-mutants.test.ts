import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp, stepUpToken, type SignedUpUser } from '../support/auth.js';
import { createApiKey, withKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

// The credential middlewares of server/procedures.ts over real HTTP. Written to kill the mutants the
// auth suites let live (see docs/mutation-testing.md): how the Authorization header is parsed, the
// step-up check of a route that always needs one, and the scope check of API-key routes.

let server: TestServer;
let user: SignedUpUser;
beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server.url);
});
afterAll(async () => {
  await server?.close();
});

const tenants = (authorization: string) => http(server.url, 'GET', '/auth/tenants', { headers: { authorization } });

describe('Authorization: Bearer', () => {
  // Node strips spaces and tabs around a header value; other whitespace, such as a no-break space
  // (byte 0xA0, read as U+00A0), reaches the parser.
  it.each([
    ['one space', (t: string) => `Bearer ${t}`],
    ['two spaces', (t: string) => `Bearer  ${t}`],
    ['a tab, lower-case scheme', (t: string) => `bearer\t${t}`],
    ['a trailing no-break space', (t: string) => `Bearer ${t}\u00a0`],
  ])('accepts the token after %s', async (_what, header) => {
    const res = await tenants(header(user.accessToken));
    expect(res.status, res.text).toBe(200);
  });

  it.each([
    ['another scheme before it', (t: string) => `Basic Bearer ${t}`],
    ['anything after the token', (t: string) => `Bearer ${t} extra`],
    ['no space after the scheme', (t: string) => `Bearer${t}`],
    ['no scheme', (t: string) => t],
  ])('refuses a header with %s (401)', async (_what, header) => {
    const res = await tenants(header(user.accessToken));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHENTICATED');
  });
});

describe('a route that always needs step-up (PUT /settings/memory, settings.memory)', () => {
  const put = (headers: Record<string, string>) =>
    http(server.url, 'PUT', '/settings/memory', {
      headers: { ...bearer(user.accessToken), ...headers },
      body: { contradiction_policy: 'FLAG' },
    });
  const policy = async () =>
    (await http(server.url, 'GET', '/settings/memory', { headers: bearer(user.accessToken) })).body.contradiction_policy;

  it('answers 403 STEP_UP_REQUIRED without X-Step-Up-Token or with one for another action, and changes nothing', async () => {
    const before = await policy();
    const otherAction: Record<string, string> = { 'x-step-up-token': await stepUpToken(server.url, user, 'data.export') };
    for (const headers of [{}, otherAction]) {
      const res = await put(headers);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('STEP_UP_REQUIRED');
    }
    expect(await policy()).toBe(before);
  });

  it('applies the change with a token for settings.memory', async () => {
    const res = await put({ 'x-step-up-token': await stepUpToken(server.url, user, 'settings.memory') });
    expect(res.status, res.text).toBe(200);
    expect(res.body.contradiction_policy).toBe('FLAG');
  });
});

describe('X-API-Key', () => {
  it('a key without the route’s scope answers 403 SCOPE_MISSING; with it, the route answers', async () => {
    const readOnly = withKey(server.url, await createApiKey(server.url, user, ['memories:read']));
    const denied = await readOnly('POST', '/memories', { body: { content: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('SCOPE_MISSING');
    expect((await readOnly('GET', '/memories')).status).toBe(200);
  });

  it('accepts a key with a trailing no-break space', async () => {
    const key = await createApiKey(server.url, user, ['memories:read']);
    const res = await http(server.url, 'GET', '/memories', { headers: { 'x-api-key': `${key}\u00a0` } });
    expect(res.status, res.text).toBe(200);
  });
});
