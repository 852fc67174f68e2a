import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import { createCursorCodec } from '../../server/services/search/cursor.js';

// Search cursor decoding at its edges, found unguarded by mutation testing (docs/mutation-testing.md):
// a signed cursor whose offset is not a whole non-negative number, and the exact depth cap.

const codec = createCursorCodec('mutants-secret-that-is-long-enough-0123456789');
const binding = { tenantId: 't1', query: { q: 'alice', mode: 'hybrid', k: 10 } };

function refusal(fn: () => unknown): { code: string; field: string | undefined } {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, field: err.details?.fields?.[0]?.field };
  }
  throw new Error('expected the cursor to be refused');
}

describe('search cursor offsets', () => {
  it.each([-1, 1.5, Number.NaN])('refuses a genuinely signed cursor whose offset is %s, naming cursor', (offset) => {
    const cursor = codec.encode(binding, offset);
    expect(refusal(() => codec.decode(cursor, binding))).toEqual({ code: 'VALIDATION_FAILED', field: 'cursor' });
  });

  it('serves offset 0', () => {
    expect(codec.decode(codec.encode(binding, 0), binding)).toBe(0);
  });

  it('serves a cursor exactly at the depth cap and refuses one just past it', () => {
    expect(codec.decode(codec.encode(binding, 100), binding, 100)).toBe(100);
    expect(refusal(() => codec.decode(codec.encode(binding, 101), binding, 100))).toEqual({ code: 'VALIDATION_FAILED', field: 'cursor' });
  });
});
