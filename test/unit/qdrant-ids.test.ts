import { describe, expect, it } from 'vitest';
import { META_POINT_ID, entityPointId, memoryPointId, uuidV5 } from '../../adapters/qdrant/ids.js';

describe('Qdrant point ids', () => {
  it('uuidV5 matches RFC 9562 name-based UUIDs (same as Python uuid.uuid5)', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    expect(uuidV5('6ba7b811-9dad-11d1-80b4-00c04fd430c8', 'https://example.com/ü')).toBe('a17f7a1d-6bb5-51a9-9d32-f9d2fdeec8b6');
    expect(() => uuidV5('not-a-uuid', 'x')).toThrow(RangeError);
  });

  it('derives one stable version-5 id per (tenant, memory)', () => {
    const id = memoryPointId('tenant-a', 'memory-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(memoryPointId('tenant-a', 'memory-1')).toBe(id);
    expect(memoryPointId('tenant-b', 'memory-1')).not.toBe(id);
    expect(memoryPointId('tenant-a', 'memory-2')).not.toBe(id);
    // Separators cannot be forged by moving characters between the parts.
    expect(memoryPointId('a\u0000b', 'c')).not.toBe(memoryPointId('a', 'b\u0000c'));
    expect(memoryPointId('a","b', 'c')).not.toBe(memoryPointId('a', 'b","c'));
  });

  it('keeps memory, entity and metadata points in distinct id spaces', () => {
    expect(entityPointId('t', 'x')).not.toBe(memoryPointId('t', 'x'));
    expect(entityPointId('t', 'x')).toBe(entityPointId('t', 'x'));
    expect(entityPointId('u', 'x')).not.toBe(entityPointId('t', 'x'));
    expect(META_POINT_ID).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses empty parts', () => {
    expect(() => memoryPointId('', 'm')).toThrow(RangeError);
    expect(() => memoryPointId('t', '')).toThrow(RangeError);
    expect(() => entityPointId('t', '')).toThrow(RangeError);
  });
});
