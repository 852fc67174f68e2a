import { parseOptions } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { createInProcessAttemptCounters } from '../support/in-process-attempt-counters.js';
import { createLoginThrottle } from '../../server/services/login-throttle.js';
import { hashSecret, newOpaqueToken, parseOpaqueToken, secretMatches } from '../../server/services/opaque-tokens.js';
import { checkPasswordPolicy, createPasswordHasher, defaultArgon2Params } from '../../server/services/passwords.js';

describe('password policy', () => {
  it('accepts 10 to 256 characters, counted as code points', () => {
    expect(() => checkPasswordPolicy('a'.repeat(10))).not.toThrow();
    expect(() => checkPasswordPolicy('a'.repeat(256))).not.toThrow();
    expect(() => checkPasswordPolicy('🔑'.repeat(10))).not.toThrow(); // 20 UTF-16 units, 10 characters
    expect(() => checkPasswordPolicy('🔑'.repeat(9))).toThrow(AppError);
  });

  it('rejects short, long and blank passwords with a field error', () => {
    for (const pw of ['a'.repeat(9), 'a'.repeat(257), ' '.repeat(12)]) {
      try {
        checkPasswordPolicy(pw);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect((err as AppError).code).toBe('VALIDATION_FAILED');
        expect((err as AppError).details?.fields?.[0]?.field).toBe('password');
      }
    }
  });
});

describe('password hasher (argon2id)', () => {
  const hasher = createPasswordHasher();

  it('hashes with argon2id at OWASP parameters, salted, and verifies', async () => {
    const h1 = await hasher.hash('correct horse battery staple');
    const h2 = await hasher.hash('correct horse battery staple');
    expect(h1).not.toBe(h2);
    const p = parseOptions(h1);
    expect(p).toMatchObject({ algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    expect(await hasher.verify(h1, 'correct horse battery staple')).toBe(true);
    expect(await hasher.verify(h1, 'correct horse battery stapl')).toBe(false);
    expect(await hasher.verify('not a hash', 'x')).toBe(false);
  });

  it('verifyDummy always answers false (it only spends the time of a real check)', async () => {
    expect(await hasher.verifyDummy('anything')).toBe(false);
    expect(await hasher.verifyDummy('dummy password for timing equalisation')).toBe(false);
  });

  it('flags hashes made with other parameters for rehash', async () => {
    const weak = createPasswordHasher({ memoryCost: 8192, timeCost: 1, parallelism: 1 });
    expect(hasher.needsRehash(await weak.hash('some password here'))).toBe(true);
    expect(hasher.needsRehash(await hasher.hash('some password here'))).toBe(false);
    expect(hasher.needsRehash('garbage')).toBe(true);
    expect(defaultArgon2Params).toEqual({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });
  });
});

describe('opaque tokens', () => {
  it('are <prefix><16 base32>.<39 base32> with only the secret hash kept', () => {
    const t = newOpaqueToken('tmr_');
    expect(t.token).toMatch(/^tmr_[a-z2-7]{16}\.[a-z2-7]{39}$/);
    const parsed = parseOpaqueToken(t.token, 'tmr_');
    expect(parsed?.id).toBe(t.id);
    expect(secretMatches(parsed!.secret, t.secretHash)).toBe(true);
    expect(t.secretHash).toEqual(hashSecret(parsed!.secret));
    expect(
      secretMatches(
        parsed!.secret.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')),
        t.secretHash,
      ),
    ).toBe(false);
  });

  it('refuse other prefixes and malformed shapes', () => {
    const t = newOpaqueToken('tmr_');
    expect(parseOpaqueToken(t.token, 'tms_')).toBeNull();
    expect(parseOpaqueToken(`${t.token}x`, 'tmr_')).toBeNull();
    expect(parseOpaqueToken('tmr_short.secret', 'tmr_')).toBeNull();
    expect(parseOpaqueToken(t.token.toUpperCase(), 'tmr_')).toBeNull();
  });

  it('are unique', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newOpaqueToken('x_').token));
    expect(ids.size).toBe(1000);
  });
});

describe('login throttle', () => {
  type Throttle = ReturnType<typeof createLoginThrottle>;
  const code = async (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: AppError) => `${e.code}:${(e.details?.retryAfterSeconds ?? 0) > 0}`,
    );
  /** A reserved attempt whose password was wrong: the reservation stands. */
  const fail = async (t: Throttle, key: string, ip: string) => void (await t.reserve(key, ip));

  it('locks a key+address after the budget, leaves other keys alone, and a success clears it', async () => {
    const t = createLoginThrottle({ perKeyAndIp: 3, perKey: 1_000, perIp: 100, windowSeconds: 60 }, createInProcessAttemptCounters());
    for (let i = 0; i < 3; i++) expect(await code(fail(t, 'a@x', '1.1.1.1'))).toBe('ok');
    expect(await code(t.reserve('a@x', '1.1.1.1'))).toBe('RATE_LIMITED:true');
    expect(await code(t.reserve('a@x', '2.2.2.2'))).toBe('ok');
    expect(await code(t.reserve('b@x', '1.1.1.1'))).toBe('ok');
    await fail(t, 'c@x', '1.1.1.1');
    await fail(t, 'c@x', '1.1.1.1');
    await (await t.reserve('c@x', '1.1.1.1')).succeeded();
    await fail(t, 'c@x', '1.1.1.1');
    await fail(t, 'c@x', '1.1.1.1');
    expect(await code(t.reserve('c@x', '1.1.1.1'))).toBe('ok');
  });

  it('reserves before the verdict: concurrent attempts beyond the budget are refused', async () => {
    const t = createLoginThrottle({ perKeyAndIp: 5, perKey: 1_000, perIp: 100, windowSeconds: 60 }, createInProcessAttemptCounters());
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => code(t.reserve('a@x', '1.1.1.1'))));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'RATE_LIMITED:true')).toHaveLength(25);
  });

  it('locks an address across keys at its own ceiling; successes do not spend it', async () => {
    const t = createLoginThrottle({ perKeyAndIp: 100, perKey: 1_000, perIp: 4, windowSeconds: 60 }, createInProcessAttemptCounters());
    for (let i = 0; i < 10; i++) await (await t.reserve(`ok${i}@x`, '9.9.9.9')).succeeded();
    for (let i = 0; i < 4; i++) await fail(t, `user${i}@x`, '9.9.9.9');
    expect(await code(t.reserve('fresh@x', '9.9.9.9'))).toBe('RATE_LIMITED:true');
    expect(await code(t.reserve('fresh@x', '8.8.8.8'))).toBe('ok');
  });

  it('charges a refused attempt only to the budget that refused it', async () => {
    const t = createLoginThrottle({ perKeyAndIp: 2, perKey: 1_000, perIp: 3, windowSeconds: 60 }, createInProcessAttemptCounters());
    await fail(t, 'a@x', '7.7.7.7');
    await fail(t, 'a@x', '7.7.7.7');
    // Refused per (key, address) over and over: the address keeps its last point for another key.
    for (let i = 0; i < 5; i++) expect(await code(t.reserve('a@x', '7.7.7.7'))).toBe('RATE_LIMITED:true');
    expect(await code(fail(t, 'b@x', '7.7.7.7'))).toBe('ok');
    expect(await code(t.reserve('c@x', '7.7.7.7'))).toBe('RATE_LIMITED:true');
  });

  it('locks a key from every address at its key-wide ceiling; successes give their point back', async () => {
    const t = createLoginThrottle({ perKeyAndIp: 100, perKey: 3, perIp: 100, windowSeconds: 60 }, createInProcessAttemptCounters());
    for (let i = 0; i < 5; i++) await (await t.reserve('a@x', `10.0.0.${i}`)).succeeded();
    for (let i = 0; i < 3; i++) await fail(t, 'a@x', `10.0.1.${i}`);
    expect(await code(t.reserve('a@x', '10.0.2.1'))).toBe('RATE_LIMITED:true');
    expect(await code(t.reserve('b@x', '10.0.2.1'))).toBe('ok');
    // Refused by the key-wide budget only: the address kept its point for other keys.
    const lone = createLoginThrottle({ perKeyAndIp: 100, perKey: 1, perIp: 2, windowSeconds: 60 }, createInProcessAttemptCounters());
    await fail(lone, 'a@x', '10.0.3.1');
    for (let i = 0; i < 3; i++) expect(await code(lone.reserve('a@x', '10.0.3.1'))).toBe('RATE_LIMITED:true');
    expect(await code(fail(lone, 'b@x', '10.0.3.1'))).toBe('ok');
  });

  it('counts an IPv6 /64 as one address, as the address budgets do', async () => {
    const t = createLoginThrottle({ perKeyAndIp: 100, perKey: 1_000, perIp: 4, windowSeconds: 60 }, createInProcessAttemptCounters());
    for (let i = 0; i < 4; i++) await fail(t, `user${i}@x`, `2001:db8:1:2::${i + 1}`);
    expect(await code(t.reserve('fresh@x', '2001:db8:1:2:ffff::9'))).toBe('RATE_LIMITED:true');
    expect(await code(t.reserve('fresh@x', '2001:db8:1:3::1'))).toBe('ok');
  });
});
