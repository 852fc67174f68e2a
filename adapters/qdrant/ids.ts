import { createHash } from 'node:crypto';

/**
 * Deterministic Qdrant point ids. A memory's point id is a name-based UUID (RFC 9562 version 5, SHA-1)
 * of (tenant, memory), so writing the same memory again replaces its point instead of adding one, and
 * two tenants' memories with the same id never share a point.
 */

/** Namespace UUID of this application's point names (random, fixed forever: changing it orphans points). */
export const POINT_NAMESPACE = '4b0e6f5c-1f0d-4c1e-9a57-6c2f3e7d9b21';

function uuidBytes(uuid: string): Buffer {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new RangeError(`not a UUID: ${uuid}`);
  return Buffer.from(hex, 'hex');
}

/** UUID version 5 of `name` (UTF-8) in `namespace`, lower-case hyphenated. */
export function uuidV5(namespace: string, name: string): string {
  const digest = createHash('sha1').update(uuidBytes(namespace)).update(Buffer.from(name, 'utf8')).digest();
  const b = digest.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function requireId(what: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0) throw new RangeError(`${what} must be a non-empty string`);
}

/**
 * The name of a point: a JSON array, so the parts can never run into each other whatever characters
 * they contain (("a", "b c") and ("a b", "c") give different names).
 */
function pointName(kind: string, ...parts: string[]): string {
  return JSON.stringify([kind, ...parts]);
}

/** The point holding one memory of one tenant. */
export function memoryPointId(tenantId: string, memoryId: string): string {
  requireId('tenantId', tenantId);
  requireId('memoryId', memoryId);
  return uuidV5(POINT_NAMESPACE, pointName('memory', tenantId, memoryId));
}

/** The point holding one tenant's statistics of one entity key (how many memories mention it). */
export function entityPointId(tenantId: string, entityKey: string): string {
  requireId('tenantId', tenantId);
  requireId('entityKey', entityKey);
  return uuidV5(POINT_NAMESPACE, pointName('entity', tenantId, entityKey));
}

/** The one point recording the embedding model and dimension the collection was built with. */
export const META_POINT_ID = uuidV5(POINT_NAMESPACE, pointName('meta', 'index-info'));
