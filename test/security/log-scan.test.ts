import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bearer, logIn, signUp } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Runs a realistic session against a real server (at debug level, so nothing hides below the
 * threshold) and scans every log line it wrote: no password, API key secret, refresh, step-up or
 * access token, JWT secret, query string or body text of any request may appear.
 */

/** Shapes of our secrets, for secrets the test did not see (e.g. a rotated one). */
const secretShapes: Array<[string, RegExp]> = [
  ['an API key secret', /tmk_[a-z2-7]{20,}/i],
  ['a refresh token', /tmr_[a-z2-7]{16,}/i],
  ['a step-up token', /tms_[a-z2-7]{16,}/i],
  ['a JWT', /eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{16,}/],
];

function scan(logs: string[], secrets: Array<[string, string]>): string[] {
  const found: string[] = [];
  for (const line of logs) {
    for (const [what, value] of secrets) if (line.includes(value)) found.push(`${what} in: ${line.slice(0, 300)}`);
    for (const [what, shape] of secretShapes) if (shape.test(line)) found.push(`${what} in: ${line.slice(0, 300)}`);
  }
  return found;
}

/** Stops the server first: every line of every finished exchange has been written by then. */
async function logsOf(server: TestServer): Promise<string[]> {
  await server.close();
  return server.logs;
}

describe('log scan', () => {
  it('a whole session leaves no secret, query string or body text in any log line', async () => {
    const jwtSecret = `jwt-secret-${randomBytes(24).toString('hex')}`;
    const server = await startTestServer({ LOG_LEVEL: 'debug', JWT_SECRET: jwtSecret });
    const marker = `mk${randomUUID().replaceAll('-', '')}`;
    const secrets: Array<[string, string]> = [
      ['the JWT secret', jwtSecret],
      ['a body marker', `body${marker}`],
      ['a query marker', `query${marker}`],
    ];
    const keep = (what: string, value: string) => {
      secrets.push([what, value]);
      // A token's parts alone must not leak either (the JWT signature, the part after a prefix).
      for (const part of value.split('.')) if (part.length >= 16 && part !== value) secrets.push([`part of ${what}`, part]);
    };

    const password = `pw-${marker}`;
    const user = await signUp(server.url, { password, name: `name body${marker}` });
    keep('a password', password);
    keep('an access token', user.accessToken);
    keep('a refresh token', user.refreshToken);

    const session = await logIn(server.url, user.email, password);
    keep('an access token', session.access_token);
    keep('a refresh token', session.refresh_token);

    const wrong = `wrong-${marker}`;
    keep('a wrong password', wrong);
    for (let i = 0; i < 3; i++) await http(server.url, 'POST', '/auth/login', { body: { email: user.email, password: wrong } });
    await http(server.url, 'POST', '/auth/login', { body: { email: `nobody-${marker}@example.test`, password: wrong } });
    // The typed client's batch, with the password in the input.
    await http(server.url, 'POST', '/trpc/auth.login,auth.login?batch=1', {
      body: { 0: { json: { email: user.email, password: wrong } }, 1: { json: { email: user.email, password: wrong } } },
    });

    const refreshed = await http(server.url, 'POST', '/auth/refresh', { headers: bearer(session.refresh_token) });
    expect(refreshed.status).toBe(200);
    keep('an access token', refreshed.body.access_token);
    keep('a refresh token', refreshed.body.refresh_token);
    // Reusing a rotated refresh token is treated as theft: the warning must not carry the token.
    expect((await http(server.url, 'POST', '/auth/refresh', { headers: bearer(session.refresh_token) })).status).toBe(401);

    expect(
      (
        await http(server.url, 'POST', '/auth/step-up', {
          headers: bearer(user.accessToken),
          body: { action: 'data.export', password: wrong },
        })
      ).status,
    ).toBe(401);
    const stepUp = await http(server.url, 'POST', '/auth/step-up', {
      headers: bearer(user.accessToken),
      body: { action: 'data.export', password },
    });
    expect(stepUp.status).toBe(200);
    keep('a step-up token', stepUp.body.step_up_token);

    const created = await http(server.url, 'POST', '/api-keys', {
      headers: bearer(user.accessToken),
      body: { name: `key body${marker}`, scopes: ['memories:read', 'memories:write', 'usage:read'] },
    });
    expect(created.status).toBe(201);
    const rotated = await http(server.url, 'POST', `/api-keys/${created.body.key_id}/rotate`, { headers: bearer(user.accessToken) });
    expect(rotated.status).toBe(200);
    keep('an API key secret', created.body.secret);
    keep('an API key secret', rotated.body.secret);
    const key = { 'x-api-key': rotated.body.secret };
    // The retired secret presented again, and a made-up one.
    await http(server.url, 'GET', '/memories', { headers: { 'x-api-key': created.body.secret } });
    await http(server.url, 'GET', '/memories', { headers: { 'x-api-key': `tmk_${'a'.repeat(52)}` } });

    const write = await http(server.url, 'POST', '/memories', {
      headers: key,
      body: {
        title: `title body${marker}`,
        content: `the user prefers tea body${marker}`,
        tags: [`body${marker}`],
        metadata: { note: `body${marker}` },
        agent_id: `agent-body${marker}`,
      },
    });
    expect(write.status).toBe(202);
    const id = write.body.memory_id as string;
    expect(
      (
        await http(server.url, 'PUT', `/memories/${id}`, {
          headers: { ...key, 'if-match': '"1"' },
          body: { content: `updated body${marker}` },
        })
      ).status,
    ).toBe(202);
    // Refused writes still carry their body: a validation failure must not echo it into the log.
    await http(server.url, 'POST', '/memories', {
      headers: key,
      body: { content: `refused body${marker}`, unknown_field: `body${marker}` },
    });
    await http(server.url, 'POST', '/memories', { headers: key, raw: `{"content": "malformed body${marker}"` });

    for (const url of [
      `/memories/search?q=query${marker}`,
      `/memories/search?q=tea&agent_id=query${marker}&namespace=default`,
      `/memories?q=query${marker}&limit=5`,
      `/memories?limit=query${marker}`,
      `/memories/search?q=tea&cursor=query${marker}`,
      `/trpc/memories.list?input=${encodeURIComponent(JSON.stringify({ json: { q: `query${marker}` } }))}`,
      `/no-such-route?token=query${marker}`,
    ]) {
      const res = await http(server.url, 'GET', url, { headers: key });
      expect(res.status, url).toBeLessThan(500);
    }
    expect((await http(server.url, 'GET', `/memories/${id}/versions`, { headers: key })).status).toBe(200);
    expect((await http(server.url, 'DELETE', `/memories/${id}`, { headers: key })).status).toBe(200);
    // (The theft above ended the refreshed session; the sign-up session ends here.)
    expect((await http(server.url, 'POST', '/auth/revoke', { headers: bearer(user.accessToken) })).status).toBe(200);

    const logs = await logsOf(server);
    // The scan is not vacuous: the session's requests were logged, with their paths.
    expect(logs.filter((l) => l.includes('/memories/search')).length).toBeGreaterThanOrEqual(3);
    expect(logs.some((l) => l.includes('/auth/login'))).toBe(true);
    expect(scan(logs, secrets)).toEqual([]);
  }, 60_000);

  // Finding 3 of issue #20: a prototype-named query key answered 500 and was logged with the full URL.
  it('an unhandled error is logged without the query string', async () => {
    const server = await startTestServer();
    const marker = `query${randomUUID().replaceAll('-', '')}`;
    const user = await signUp(server.url);
    await http(server.url, 'GET', `/auth/tenants?constructor=1&q=${marker}`, { headers: bearer(user.accessToken) });
    await http(server.url, 'GET', `/roles?toString=1&q=${marker}`, { headers: bearer(user.accessToken) });
    const logs = await logsOf(server);
    expect(logs.some((l) => l.includes('/auth/tenants'))).toBe(true);
    expect(scan(logs, [['a query marker', marker]])).toEqual([]);
  }, 30_000);
});
