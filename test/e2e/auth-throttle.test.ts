import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, signUp } from '../support/auth.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
// A server per test: the per-address budget counts every failure from loopback, so tests sharing one
// would depend on each other's order.
beforeEach(async () => {
  // Default per (email, address) budget (5 per 15 min); a small per-address ceiling so it can be reached here.
  server = await startTestServer({}, { loginThrottle: { perKeyAndIp: 5, perKey: 1_000, perIp: 20, windowSeconds: 900 } });
});
afterEach(async () => {
  await server?.close();
});

const login = (email: string, password: string) => http(server.url, 'POST', '/auth/login', { body: { email, password } });

describe('login throttling', () => {
  it('after 5 failures for one email from one address answers 429 with Retry-After, even for the right password', async () => {
    const u = await signUp(server.url);
    for (let i = 0; i < 5; i++) expect((await login(u.email, `wrong password ${i}`)).status).toBe(401);
    const blocked = await login(u.email, u.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMITED');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // The lock-out is per email: another account from the same address still signs in.
    const other = await signUp(server.url);
    expect((await login(other.email, other.password)).status).toBe(200);
    // Failures were audited in the user's tenant; the throttled attempt never reached the password check.
    const types = (await server.services.audit.list(u.tenantId, { limit: 50, offset: 0 })).events.map((e) => e.type);
    expect(types.filter((t) => t === 'auth.login_failed')).toHaveLength(5);
  });

  it('a success clears the count, so occasional typos never lock a user out', async () => {
    const u = await signUp(server.url);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++) expect((await login(u.email, 'typo typo typo')).status).toBe(401);
      expect((await login(u.email, u.password)).status).toBe(200);
    }
  });

  it('counts failures per address across emails and stops guessing at the ceiling', async () => {
    // 13 failures from this address first, across emails; the ceiling is 20.
    for (let i = 0; i < 13; i++) expect((await login(`earlier-${i}@example.com`, 'guess guess guess')).status).toBe(401);
    let status = 401;
    let failures = 0;
    for (let i = 0; i < 30 && status === 401; i++) {
      status = (await login(`nobody-${i}@example.com`, 'guess guess guess')).status;
      if (status === 401) failures++;
    }
    expect(status).toBe(429);
    expect(failures).toBe(20 - 13);
    const u = await signUp(server.url);
    const res = await login(u.email, u.password);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('step-up password throttling', () => {
  it('locks step-up after 5 wrong passwords for that user', async () => {
    const fresh = await startTestServer();
    try {
      const u = await signUp(fresh.url);
      const stepUp = (password: string) =>
        http(fresh.url, 'POST', '/auth/step-up', { headers: bearer(u.accessToken), body: { action: 'data.export', password } });
      for (let i = 0; i < 5; i++) expect((await stepUp('not my password')).status).toBe(401);
      const blocked = await stepUp(u.password);
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('retry-after')).toBeTruthy();
    } finally {
      await fresh.close();
    }
  });
});

describe('sign-up rate limit', () => {
  it('allows SIGNUP_RATE_LIMIT sign-ups per address per hour, then answers 429 with Retry-After before creating anything', async () => {
    // Behind a trusted loopback proxy, so X-Forwarded-For gives each request its client address.
    const limited = await startTestServer({ SIGNUP_RATE_LIMIT: '2', TRUST_PROXY: 'loopback' });
    try {
      const signup = (n: number, address: string) =>
        http(limited.url, 'POST', '/auth/signup', {
          body: { email: `rate-${n}@example.com`, password: 'a long enough password' },
          headers: { 'x-forwarded-for': address },
        });
      expect((await signup(1, '203.0.113.7')).status).toBe(201);
      expect((await signup(2, '203.0.113.7')).status).toBe(201);
      const blocked = await signup(3, '203.0.113.7');
      expect(blocked.status).toBe(429);
      expect(blocked.body.code).toBe('RATE_LIMITED');
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      // Nothing was created for the refused sign-up: the email is still free from another address.
      expect((await signup(3, '198.51.100.9')).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});
