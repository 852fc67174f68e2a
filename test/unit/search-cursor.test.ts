import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { createCursorCodec } from '../../server/services/search/cursor.js';

const codec = createCursorCodec('a-test-secret-that-is-long-enough-123456');
const binding = { tenantId: 't1', query: { q: 'alice paris', mode: 'hybrid', k: 10 } };

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_FAILED');
    return (err as AppError).details?.fields?.[0]?.field;
  }
  throw new Error('expected a validation error');
}

describe('search cursor', () => {
  it('round-trips the next offset for the same query', () => {
    const cursor = codec.encode(binding, 20);
    expect(codec.decode(cursor, { tenantId: 't1', query: { k: 10, mode: 'hybrid', q: 'alice paris' } })).toBe(20);
  });

  it('refuses a cursor used with another query, tenant or secret', () => {
    const cursor = codec.encode(binding, 10);
    expect(fieldOf(() => codec.decode(cursor, { ...binding, query: { ...binding.query, q: 'bob' } }))).toBe('cursor');
    expect(fieldOf(() => codec.decode(cursor, { ...binding, tenantId: 't2' }))).toBe('cursor');
    const other = createCursorCodec('another-secret-that-is-long-enough-12345');
    expect(fieldOf(() => other.decode(cursor, binding))).toBe('cursor');
  });

  it('refuses tampered and malformed cursors', () => {
    const cursor = codec.encode(binding, 10);
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ o: 5000, b: JSON.parse(Buffer.from(body!, 'base64url').toString()).b })).toString(
      'base64url',
    );
    expect(fieldOf(() => codec.decode(`${forged}.${mac}`, binding))).toBe('cursor');
    for (const bad of ['', 'abc', 'a.b.c', '%%%.%%%', `${body}.`]) expect(fieldOf(() => codec.decode(bad, binding))).toBe('cursor');
  });
});
