import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, signUp } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ LOG_LEVEL: 'debug' });
});
afterAll(async () => {
  await server?.close();
});

describe('secrets never come back', () => {
  it('passwords and tokens appear in no later response, no log line and not in the database files', async () => {
    const secrets: string[] = [];
    const bodies: string[] = [];
    const call = async (method: string, url: string, opts: Parameters<typeof http>[3] = {}) => {
      const res = await http(server.url, method, url, opts);
      bodies.push(res.text);
      return res;
    };

    const u = await signUp(server.url, { password: 'my very secret passphrase' });
    secrets.push(u.password, u.accessToken, u.refreshToken);
    // A failed sign-in with a wrong password, for a known and an unknown email.
    const wrongPassword = 'wrong secret passphrase 123';
    secrets.push(wrongPassword);
    await call('POST', '/auth/login', { body: { email: u.email, password: wrongPassword } });
    await call('POST', '/auth/login', { body: { email: 'nobody@example.com', password: wrongPassword } });
    const login = await http(server.url, 'POST', '/auth/login', { body: { email: u.email, password: u.password } });
    secrets.push(login.body.access_token, login.body.refresh_token);
    const refreshed = await http(server.url, 'POST', '/auth/refresh', { headers: bearer(login.body.refresh_token) });
    secrets.push(refreshed.body.access_token, refreshed.body.refresh_token);
    const stepUp = await http(server.url, 'POST', '/auth/step-up', {
      headers: bearer(u.accessToken),
      body: { action: 'data.export', password: u.password },
    });
    secrets.push(stepUp.body.step_up_token);
    await call('POST', '/auth/break-glass/request', { headers: bearer(u.accessToken), body: { reason: 'check', duration_minutes: 5 } });

    // Everything a client can read afterwards.
    for (const p of [
      '/auth/tenants',
      '/auth/gettenant',
      '/auth/members',
      '/auth/audit?limit=200',
      '/auth/audit/verify',
      '/auth/break-glass',
      '/roles',
    ]) {
      const res = await call('GET', p, { headers: bearer(u.accessToken) });
      expect(res.status, p).toBe(200);
    }
    await call('POST', '/auth/revoke', { headers: bearer(refreshed.body.refresh_token) });
    // Secrets presented in requests must not be echoed in error bodies either.
    await call('POST', '/auth/refresh', { headers: bearer(refreshed.body.refresh_token) });

    const logs = server.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain('auth.login_failed'); // the unknown-email failure is logged…
    for (const s of secrets) {
      for (const b of bodies) expect(b.includes(s), `response contains a secret`).toBe(false);
      expect(logs.includes(s), `logs contain a secret`).toBe(false);
      // Tokens are split at the dot: the secret part alone must not leak either.
      const secretPart = s.includes('.') && s.startsWith('tm') ? s.split('.')[1]! : s;
      expect(logs.includes(secretPart)).toBe(false);
    }

    const stored = readdirSync(server.dataDir)
      .filter((f) => f.startsWith('tenant-memory.db'))
      .map((f) => readFileSync(path.join(server.dataDir, f)).toString('latin1'))
      .join('');
    expect(stored.length).toBeGreaterThan(0);
    for (const s of secrets) {
      const secretPart = s.startsWith('tm') ? s.split('.')[1]! : s;
      expect(stored.includes(secretPart), 'a secret is stored in clear').toBe(false);
    }
    expect(stored).toContain('$argon2id$'); // what is stored instead of the password
  });
});
