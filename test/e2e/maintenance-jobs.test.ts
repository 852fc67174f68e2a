import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeEnded } from '../../jobs/definitions/purge-ended.js';
import { signUp } from '../support/auth.js';
import { until } from '../support/job-fixtures.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('maintenance.purge-ended', () => {
  it('is scheduled once by the in-process workers and purges sessions that ended over a day ago', async () => {
    const { services } = server;
    expect((await services.jobs.counts(purgeEnded.name)).total).toBe(1);

    const user = await signUp(server.url);
    const long = Date.now() - 3 * 24 * 3600_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const stale = {
      id: randomUUID(),
      userId: user.userId,
      tenantId: user.tenantId,
      method: 'password' as const,
      channel: 'api' as const,
      ip: null,
      userAgent: null,
      createdAt: iso(long),
      authenticatedAt: iso(long),
      expiresAt: iso(long + 3600_000),
      revokedAt: null,
      revokeReason: null,
    };
    const token = randomUUID();
    await services.ports.sessions.create(stale, {
      id: token,
      sessionId: stale.id,
      secretHash: new Uint8Array(32),
      createdAt: iso(long),
      rotatedAt: null,
    });

    await services.jobs.now(purgeEnded, {});
    await until(async () => (await services.ports.sessions.get(stale.id)) === null, 'the stale session to be purged', 20_000);
    expect(await services.ports.sessions.findRefreshToken(token)).toBeNull();
    // The user's own, live session from sign-up is untouched: its refresh still works.
    const refreshed = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.refreshToken}` },
    });
    expect(refreshed.status).toBe(200);
  });
});
