import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPasswordHasher } from '../../server/services/passwords.js';
import { bearer } from '../support/auth.js';
import { countingArgon2 } from '../support/counting-argon2.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * Every throttle under concurrent requests over real HTTP: exactly its budget gets through (to the
 * password check, or to the work it guards) and every other request gets 429 with Retry-After and
 * the JSON error body. A throttle that checked its count before verifying and charged after would let
 * all of them through. Verifications are counted at the real argon2 functions.
 */
const argon2 = countingArgon2();
// Cheap argon2 cost: these tests count verifications, they do not measure them.
const cheap = { memoryCost: 4096, timeCost: 1, parallelism: 1 };
let server: TestServer;
let lastOctet = 0;
/** A client address of its own for each test (the server trusts X-Forwarded-For from loopback). */
const nextAddress = () => `203.0.113.${++lastOctet}`;

beforeAll(async () => {
  server = await startTestServer(
    { TRUST_PROXY: 'loopback', SIGNUP_RATE_LIMIT: '5' },
    // The per-address budget exceeds every test's burst here, so only the budget under test refuses.
    { loginThrottle: { perKeyAndIp: 5, perKey: 1_000, perIp: 100, windowSeconds: 900 }, passwords: createPasswordHasher(cheap, argon2) },
  );
});
afterAll(async () => {
  await server?.close();
});

const from = (address: string) => ({ 'x-forwarded-for': address });

async function signUpFrom(address: string) {
  const email = `burst-${randomUUID()}@example.test`;
  const password = `pw-${randomUUID()}`;
  const res = await http(server.url, 'POST', '/auth/signup', { body: { email, password }, headers: from(address) });
  expect(res.status).toBe(201);
  return { email, password, accessToken: res.body.access_token as string };
}

/** Fires all requests at once and tallies their statuses. */
async function burst(requests: Array<() => ReturnType<typeof http>>) {
  const before = argon2.verifications.length;
  const responses = await Promise.all(requests.map((r) => r()));
  const statuses: Record<number, number> = {};
  for (const r of responses) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  return { responses, statuses, verified: argon2.verifications.length - before };
}

function expectRateLimited(responses: Awaited<ReturnType<typeof http>>[]) {
  const limited = responses.filter((r) => r.status === 429);
  for (const r of limited) {
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r.body).toEqual({ code: 'RATE_LIMITED', message: expect.any(String), request_id: expect.any(String) });
  }
}

describe('concurrent requests against every throttle', () => {
  it('sign-in per (email, address): of 30 concurrent wrong passwords exactly 5 are verified, 25 get 429', async () => {
    const address = nextAddress();
    const u = await signUpFrom(address);
    const login = (password: string) => () =>
      http(server.url, 'POST', '/auth/login', { body: { email: u.email, password }, headers: from(address) });
    const { responses, statuses, verified } = await burst(Array.from({ length: 30 }, (_, i) => login(`wrong password ${i}`)));
    expect(statuses).toEqual({ 401: 5, 429: 25 });
    expect(verified).toBe(5);
    expectRateLimited(responses);
    // The budget is spent: the right password is refused without being checked.
    const { statuses: after, verified: checked } = await burst([login(u.password)]);
    expect(after).toEqual({ 429: 1 });
    expect(checked).toBe(0);
  });

  it('step-up per (user, address): of 20 concurrent wrong passwords exactly 5 are verified, 15 get 429', async () => {
    const address = nextAddress();
    const u = await signUpFrom(address);
    const stepUp = (password: string) => () =>
      http(server.url, 'POST', '/auth/step-up', {
        headers: { ...bearer(u.accessToken), ...from(address) },
        body: { action: 'data.export', password },
      });
    const { responses, statuses, verified } = await burst(Array.from({ length: 20 }, () => stepUp('not my password at all')));
    expect(statuses).toEqual({ 401: 5, 429: 15 });
    expect(verified).toBe(5);
    expectRateLimited(responses);
    expect((await burst([stepUp(u.password)])).statuses).toEqual({ 429: 1 });
  });

  it('one tRPC batch of 60 auth.login calls counts every call: 5 verified, 55 RATE_LIMITED', async () => {
    const address = nextAddress();
    const u = await signUpFrom(address);
    const calls = 60;
    const input = Object.fromEntries(
      Array.from({ length: calls }, (_, i) => [String(i), { json: { email: u.email, password: `wrong guess number ${i}` } }]),
    );
    const before = argon2.verifications.length;
    const res = await http(server.url, 'POST', `/trpc/${Array(calls).fill('auth.login').join(',')}?batch=1`, {
      body: input,
      headers: from(address),
    });
    expect(argon2.verifications.length - before).toBe(5);
    expect(res.body).toHaveLength(calls);
    const codes: Record<string, number> = {};
    for (const item of res.body as Array<{ error?: { json: { data: { app: { code: string } } } } }>) {
      const code = item.error?.json.data.app.code ?? 'ok';
      codes[code] = (codes[code] ?? 0) + 1;
    }
    expect(codes).toEqual({ UNAUTHENTICATED: 5, RATE_LIMITED: 55 });
  });

  it('sign-up budget per address: of 20 concurrent sign-ups exactly 5 create an account, 15 get 429', async () => {
    const address = nextAddress();
    const emails = Array.from({ length: 20 }, () => `signup-burst-${randomUUID()}@example.test`);
    const { responses, statuses } = await burst(
      emails.map(
        (email) => () =>
          http(server.url, 'POST', '/auth/signup', { body: { email, password: 'a long enough password' }, headers: from(address) }),
      ),
    );
    expect(statuses).toEqual({ 201: 5, 429: 15 });
    expectRateLimited(responses);
    const created = await Promise.all(emails.map((e) => server.services.ports.users.findByEmail(e)));
    expect(created.filter(Boolean)).toHaveLength(5);
  });
});

describe('concurrent sign-ins against the per-address budget', () => {
  it('of 30 concurrent sign-ins for 30 emails from one address exactly 10 are verified, 20 get 429', async () => {
    const counted = countingArgon2();
    const limited = await startTestServer(
      { TRUST_PROXY: 'loopback' },
      { loginThrottle: { perKeyAndIp: 5, perKey: 1_000, perIp: 10, windowSeconds: 900 }, passwords: createPasswordHasher(cheap, counted) },
    );
    try {
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          http(limited.url, 'POST', '/auth/login', {
            body: { email: `nobody-${i}@example.test`, password: 'guess guess guess' },
            headers: from('198.51.100.7'),
          }),
        ),
      );
      expect(responses.filter((r) => r.status === 401)).toHaveLength(10);
      expect(responses.filter((r) => r.status === 429)).toHaveLength(20);
      // Unknown emails run the dummy check: one real verification each, and no more.
      expect(counted.verifications).toHaveLength(10);
      expectRateLimited(responses);
    } finally {
      await limited.close();
    }
  });
});

describe('concurrent guesses spread over many addresses against the per-account budget', () => {
  // Review finding: with only per-(account, address) budgets, each new address bought 5 more guesses.
  const perKey = 8;
  let spread: TestServer;
  const counted = countingArgon2();
  beforeAll(async () => {
    spread = await startTestServer(
      { TRUST_PROXY: 'loopback', SIGNUP_RATE_LIMIT: '100' },
      { loginThrottle: { perKeyAndIp: 5, perKey, perIp: 100, windowSeconds: 900 }, passwords: createPasswordHasher(cheap, counted) },
    );
  });
  afterAll(async () => {
    await spread?.close();
  });

  async function spreadBurst(request: (address: string, i: number) => ReturnType<typeof http>) {
    const before = counted.verifications.length;
    const responses = await Promise.all(Array.from({ length: 24 }, (_, i) => request(`192.0.2.${i + 1}`, i)));
    const statuses: Record<number, number> = {};
    for (const r of responses) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    expectRateLimited(responses);
    return { statuses, verified: counted.verifications.length - before };
  }

  it(`sign-in: of 24 wrong passwords for one email from 24 addresses exactly ${perKey} are verified`, async () => {
    const email = `spread-${randomUUID()}@example.test`;
    const password = `pw-${randomUUID()}`;
    expect((await http(spread.url, 'POST', '/auth/signup', { body: { email, password }, headers: from('198.51.100.1') })).status).toBe(201);
    const { statuses, verified } = await spreadBurst((address, i) =>
      http(spread.url, 'POST', '/auth/login', { body: { email, password: `wrong password ${i}` }, headers: from(address) }),
    );
    expect(statuses).toEqual({ 401: perKey, 429: 24 - perKey });
    expect(verified).toBe(perKey);
    // The account's budget is spent from everywhere, even a fresh address with the right password.
    expect((await http(spread.url, 'POST', '/auth/login', { body: { email, password }, headers: from('198.51.100.99') })).status).toBe(429);
  });

  it(`step-up: a stolen session guessing from 24 addresses gets exactly ${perKey} verified`, async () => {
    const email = `spread-${randomUUID()}@example.test`;
    const signed = await http(spread.url, 'POST', '/auth/signup', {
      body: { email, password: `pw-${randomUUID()}` },
      headers: from('198.51.100.2'),
    });
    const { statuses, verified } = await spreadBurst((address) =>
      http(spread.url, 'POST', '/auth/step-up', {
        headers: { ...bearer(signed.body.access_token), ...from(address) },
        body: { action: 'data.export', password: 'not my password' },
      }),
    );
    expect(statuses).toEqual({ 401: perKey, 429: 24 - perKey });
    expect(verified).toBe(perKey);
  });
});
