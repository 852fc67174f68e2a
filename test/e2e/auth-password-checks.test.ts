import { randomUUID } from 'node:crypto';
import { parseOptions } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPasswordHasher } from '../../server/services/passwords.js';
import { signUp } from '../support/auth.js';
import { countingArgon2 } from '../support/counting-argon2.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * What sign-in does with passwords, observed at the real argon2 functions rather than by timing:
 * every failed sign-in runs exactly one verification at the current cost, whether or not the email
 * is known (so the answer's timing does not tell), and an old hash is replaced at the next sign-in.
 */
// The server's current argon2 parameters: not the default, so a hash made elsewhere cannot pass for one of ours.
const current = { memoryCost: 8192, timeCost: 2, parallelism: 1 };
const older = { memoryCost: 4096, timeCost: 1, parallelism: 1 };
const argon2 = countingArgon2();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({}, { passwords: createPasswordHasher(current, argon2) });
});
afterAll(async () => {
  await server?.close();
});

/** Signs in and returns the answer with the verifications it caused. */
async function login(email: string, password: string) {
  const before = argon2.verifications.length;
  const res = await http(server.url, 'POST', '/auth/login', { body: { email, password } });
  return { res, verifications: argon2.verifications.slice(before) };
}

const costOf = (hash: string) => {
  const p = parseOptions(hash);
  return { memoryCost: p.memoryCost, timeCost: p.timeCost, parallelism: p.parallelism };
};

describe('failed sign-ins run one real verification each, known email or not', () => {
  it('a wrong password, an unknown email and a user without a password each cost one verification at the current parameters and get the same 401', async () => {
    const known = await signUp(server.url);
    const { user: ssoOnly } = await server.services.auth.provisionUser({ email: `sso-${randomUUID()}@example.test`, passwordHash: null });
    const cases = {
      wrong_password: await login(known.email, 'not the right password'),
      unknown_email: await login(`nobody-${randomUUID()}@example.test`, 'not the right password'),
      no_password: await login(ssoOnly.email, 'not the right password'),
    };
    for (const [name, { res, verifications }] of Object.entries(cases)) {
      expect(res.status, name).toBe(401);
      expect(res.body, name).toEqual({ code: 'UNAUTHENTICATED', message: 'invalid email or password', request_id: expect.any(String) });
      expect(verifications, name).toEqual([current]);
    }
  });
});

describe('rehashing at sign-in', () => {
  it('replaces a hash made with older parameters by one at the current parameters, and the password still works', async () => {
    const u = await signUp(server.url);
    const oldHash = await createPasswordHasher(older).hash(u.password);
    await server.services.ports.users.setPasswordHash(u.userId, oldHash);
    // A wrong password is checked against the old hash and changes nothing.
    expect((await login(u.email, 'not the right password')).verifications).toEqual([older]);
    expect((await server.services.ports.users.findById(u.userId))?.passwordHash).toBe(oldHash);

    const first = await login(u.email, u.password);
    expect(first.res.status).toBe(200);
    expect(first.verifications).toEqual([older]);
    const stored = (await server.services.ports.users.findById(u.userId))!.passwordHash!;
    expect(stored).not.toBe(oldHash);
    expect(costOf(stored)).toEqual(current);

    const second = await login(u.email, u.password);
    expect(second.res.status).toBe(200);
    expect(second.verifications).toEqual([current]);
    expect((await server.services.ports.users.findById(u.userId))!.passwordHash).toBe(stored); // no rehash when current
  });
});
