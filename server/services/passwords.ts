import { hash, parseOptions, verify, type Algorithm } from '@node-rs/argon2';
import { AppError } from '../errors.js';

/**
 * argon2id cost parameters. The default is OWASP's minimum recommendation for argon2id
 * (m = 19 MiB, t = 2, p = 1); bench/login.ts measures what it costs per sign-in.
 */
export interface Argon2Params {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

export const defaultArgon2Params: Argon2Params = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

// `Algorithm` is an ambient const enum, which isolatedModules cannot read; Argon2id is 2.
const ARGON2ID = 2 as Algorithm;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

/**
 * The password policy: 10 to 256 characters (code points), not only whitespace. Length is what
 * matters (NIST SP 800-63B); composition rules are deliberately absent.
 */
export function checkPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) throw policyError(`must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (length > PASSWORD_MAX_LENGTH) throw policyError(`must be at most ${PASSWORD_MAX_LENGTH} characters`);
  if (password.trim() === '') throw policyError('must not be only whitespace');
}

const policyError = (message: string) =>
  new AppError('VALIDATION_FAILED', `password: ${message}`, { fields: [{ field: 'password', message }] });

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password or an unreadable hash; never throws for a bad password. */
  verify(passwordHash: string, password: string): Promise<boolean>;
  /**
   * Spends the same time as a real verification against a fixed dummy hash and returns false:
   * used when there is no user (or no password) so that timing does not reveal whether an email exists.
   */
  verifyDummy(password: string): Promise<false>;
  /** True when a stored hash was made with other parameters than the current ones. */
  needsRehash(passwordHash: string): boolean;
}

/** The two argon2 operations the hasher runs; a test may wrap the real ones to count them. */
export interface Argon2Functions {
  hash(password: string, options: Argon2Params & { algorithm: Algorithm }): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
}

export function createPasswordHasher(
  params: Argon2Params = defaultArgon2Params,
  argon2: Argon2Functions = { hash, verify },
): PasswordHasher {
  const options = { algorithm: ARGON2ID, ...params };
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => argon2.hash(password, options),
    async verify(passwordHash, password) {
      try {
        return await argon2.verify(passwordHash, password);
      } catch {
        return false;
      }
    },
    async verifyDummy(password) {
      dummy ??= argon2.hash('dummy password for timing equalisation', options);
      await argon2.verify(await dummy, password).catch(() => false);
      return false;
    },
    needsRehash(passwordHash) {
      try {
        const p = parseOptions(passwordHash);
        return (
          p.algorithm !== ARGON2ID ||
          p.memoryCost !== params.memoryCost ||
          p.timeCost !== params.timeCost ||
          p.parallelism !== params.parallelism
        );
      } catch {
        return true;
      }
    },
  };
}
