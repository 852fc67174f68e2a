import { describe, expect, it } from 'vitest';
import { createMemoryInput } from '../../routers/memories/schemas.js';
import { metadataInput } from '../../server/schemas/metadata.js';

/** Metadata keys: one rule for both storage profiles (server/schemas/metadata.ts). */
describe('metadata keys', () => {
  it.each(['source', 'turn_12', 'price$', 'a$b', 'x-y:z', 'Ünïcode key', 'a'.repeat(100)])('accepts %j', (key) => {
    expect(metadataInput.safeParse({ [key]: 1 }).success).toBe(true);
  });

  it.each([
    ['$where', 'metadata key must not start with "$"'],
    ['$ref', 'metadata key must not start with "$"'],
    ['a.b', 'metadata key must not contain "."'],
    ['.', 'metadata key must not contain "."'],
    ['$a.b', 'metadata key must not start with "$"'],
    ['', 'metadata keys must be 1-100 characters without control characters'],
    ['a'.repeat(101), 'metadata keys must be 1-100 characters without control characters'],
    ['bad\u0000key', 'metadata keys must be 1-100 characters without control characters'],
  ])('refuses %j, naming the key', (key, message) => {
    const r = createMemoryInput.safeParse({ content: 'x', metadata: { ok: 1, [key]: 'v' } });
    expect(r.success).toBe(false);
    expect(r.error!.issues).toEqual([expect.objectContaining({ path: ['metadata', key], message })]);
  });
});
