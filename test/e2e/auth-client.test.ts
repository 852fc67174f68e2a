import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPCClientError } from '@trpc/client';
import { createTenantMemoryClient } from '../../client/index.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('auth through the typed tRPC client', () => {
  it('signs up, reads tenants and roles, and gets the same machine codes as REST', async () => {
    const anon = createTenantMemoryClient({ url: server.url });
    const tokens = await anon.auth.signup.mutate({ email: `typed-${Date.now()}@example.com`, password: 'typed client password' });
    expect(tokens.token_type).toBe('Bearer');
    const client = createTenantMemoryClient({ url: server.url, accessToken: tokens.access_token });
    const { tenants } = await client.tenants.list.query({});
    expect(tenants).toEqual([expect.objectContaining({ tenant_id: tokens.tenant_id, is_default: true })]);
    expect((await client.roles.get.query({ name: 'member' })).permissions).toContain('memories:write');
    const err = await anon.auth.login.mutate({ email: 'nobody@example.com', password: 'whatever pw' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<never>).data).toMatchObject({ app: { code: 'UNAUTHENTICATED', message: 'invalid email or password' } });
  });
});

describe('OpenAPI document', () => {
  it('documents every auth route with its credential', async () => {
    const doc = (await http(server.url, 'GET', '/openapi.json')).body;
    const expected: Array<[string, string, 'none' | 'bearerAuth']> = [
      ['/auth/signup', 'post', 'none'],
      ['/auth/login', 'post', 'none'],
      ['/auth/refresh', 'post', 'bearerAuth'],
      ['/auth/revoke', 'post', 'bearerAuth'],
      ['/auth/step-up', 'post', 'bearerAuth'],
      ['/auth/break-glass/request', 'post', 'bearerAuth'],
      ['/auth/break-glass', 'get', 'bearerAuth'],
      ['/auth/break-glass/{id}/approve', 'post', 'bearerAuth'],
      ['/auth/break-glass/{id}/deny', 'post', 'bearerAuth'],
      ['/auth/audit', 'get', 'bearerAuth'],
      ['/auth/audit/verify', 'get', 'bearerAuth'],
      ['/auth/tenants', 'get', 'bearerAuth'],
      ['/auth/tenants', 'post', 'bearerAuth'],
      ['/auth/gettenant', 'get', 'bearerAuth'],
      ['/auth/members', 'get', 'bearerAuth'],
      ['/auth/members', 'post', 'bearerAuth'],
      ['/auth/members/{user_id}', 'put', 'bearerAuth'],
      ['/roles', 'get', 'bearerAuth'],
      ['/roles/{name}', 'get', 'bearerAuth'],
    ];
    for (const [path, method, scheme] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      if (scheme === 'none')
        expect(op.security, path).toEqual([]); // public routes say so (issue #21, OpenAPI lint)
      else expect(op.security, path).toEqual([{ [scheme]: [] }]);
    }
  });
});
