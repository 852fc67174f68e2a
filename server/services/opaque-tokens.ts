import { randomBytes } from 'node:crypto';
import { sha256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';

/**
 * Opaque secrets in Lucia's split form `<prefix><id>.<secret>`: the id is a non-secret lookup key,
 * only SHA-256(secret) is stored, and the presented secret is compared with the stored hash in
 * constant time, so neither a database read nor response timing gives the token away.
 */
export interface OpaqueToken {
  /** What the client receives, exactly once. */
  token: string;
  id: string;
  secretHash: Uint8Array;
}

const ID_BYTES = 10; // 16 base32 characters
const SECRET_BYTES = 24; // 192 bits, 39 base32 characters

const random = (bytes: number) => encodeBase32LowerCaseNoPadding(new Uint8Array(randomBytes(bytes)));

export function hashSecret(secret: string): Uint8Array {
  return sha256(new TextEncoder().encode(secret));
}

export function newOpaqueToken(prefix: string): OpaqueToken {
  const id = random(ID_BYTES);
  const secret = random(SECRET_BYTES);
  return { token: `${prefix}${id}.${secret}`, id, secretHash: hashSecret(secret) };
}

const shape = /^([a-z2-7]{16})\.([a-z2-7]{39})$/;

/** Splits a presented token of this prefix; null when it is not one. */
export function parseOpaqueToken(token: string, prefix: string): { id: string; secret: string } | null {
  if (!token.startsWith(prefix)) return null;
  const m = shape.exec(token.slice(prefix.length));
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  return constantTimeEqual(hashSecret(secret), storedHash);
}

/** Non-secret random identifier (base32), e.g. for JWT ids. */
export function randomId(bytes = 16): string {
  return random(bytes);
}
