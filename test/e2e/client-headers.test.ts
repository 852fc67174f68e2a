import { randomUUID } from 'node:crypto';
import { TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantMemoryClient } from '../../client/index.js';
import { signUp } from '../support/auth.js';
import { portalLogin } from '../support/portal.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * The typed client as the web portal uses it: headers read from a function at each call (the tab's
 * tenant and the session's CSRF token), and headers for one call only (X-Step-Up-Token).
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const codeOf = (err: unknown) => (err instanceof TRPCClientError ? (err.data as { app?: { code: string } }).app?.code : undefined);

describe('client headers', () => {
  it('reads a headers function at every call', async () => {
    const user = await signUp(server.url);
    const browser = await portalLogin(server.url, user.email, user.password);
    let tenant = user.tenantId;
    const client = createTenantMemoryClient({
      url: server.url,
      headers: () => ({ cookie: browser.cookie, 'x-csrf-token': browser.csrf, 'x-tenant-id': tenant }),
    });
    expect((await client.portal.tenants.query({})).tenants).toHaveLength(1);
    tenant = randomUUID();
    const refused = await client.portal.tenants.query({}).catch((err: unknown) => err);
    expect(codeOf(refused)).toBe('FORBIDDEN');
  });

  it("sends a call's own headers with that call only, even when other calls go at the same moment", async () => {
    const user = await signUp(server.url);
    const browser = await portalLogin(server.url, user.email, user.password);
    const client = createTenantMemoryClient({ url: server.url, headers: () => ({ cookie: browser.cookie, 'x-csrf-token': browser.csrf }) });
    const [listed, forged, created] = await Promise.allSettled([
      client.portal.tenants.query({}),
      client.portal.createTenant.mutate({ name: 'Forged' }, { context: { headers: { 'x-csrf-token': 'not-the-token' } } }),
      client.portal.createTenant.mutate({ name: 'Fine' }),
    ]);
    expect(listed.status).toBe('fulfilled');
    expect(forged.status === 'rejected' && codeOf(forged.reason)).toBe('CSRF_FAILED');
    expect(created.status === 'fulfilled' && created.value.name).toBe('Fine');
  });
});
