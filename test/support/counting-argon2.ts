import { hash, parseOptions, verify } from '@node-rs/argon2';
import type { Argon2Functions, Argon2Params } from '../../server/services/passwords.js';

/** One argon2 verification the hasher really ran: the cost parameters of the hash it checked against. */
export type Verification = Argon2Params;

/**
 * The real argon2 functions, with every verification recorded: tests count the password checks a
 * request caused (and at what cost) instead of timing them.
 */
export function countingArgon2(): Argon2Functions & { verifications: Verification[] } {
  const verifications: Verification[] = [];
  return {
    verifications,
    hash: (password, options) => hash(password, options),
    async verify(passwordHash, password) {
      const p = parseOptions(passwordHash);
      verifications.push({ memoryCost: p.memoryCost, timeCost: p.timeCost, parallelism: p.parallelism });
      return verify(passwordHash, password);
    },
  };
}
