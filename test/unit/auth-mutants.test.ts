import { hash } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import { createPasswordHasher, type Argon2Params } from '../../server/services/passwords.js';

// Rehash at sign-in must notice a stored hash that differs from the current parameters in any single
// respect; mutation testing found that only a hash differing in several at once was tested.

const current: Argon2Params = { memoryCost: 1024, timeCost: 2, parallelism: 1 };
const hasher = createPasswordHasher(current);
const password = 'a password of some length';

describe('needsRehash', () => {
  it('is false for a hash made with exactly the current parameters', async () => {
    expect(hasher.needsRehash(await hasher.hash(password))).toBe(false);
  });

  it.each<[string, Parameters<typeof hash>[1]]>([
    ['memory cost', { algorithm: 2, ...current, memoryCost: 2048 }],
    ['time cost', { algorithm: 2, ...current, timeCost: 3 }],
    ['parallelism', { algorithm: 2, ...current, parallelism: 2 }],
    ['algorithm (argon2i)', { algorithm: 1, ...current }],
  ])('is true for a hash that differs only in %s', async (_what, options) => {
    expect(hasher.needsRehash(await hash(password, options))).toBe(true);
  });
});
