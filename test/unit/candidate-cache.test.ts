import { describe, expect, it } from 'vitest';
import { CandidateCache } from '../../adapters/embedded/candidate-cache.js';
import type { MemoryCandidate } from '../../server/ports/memories.js';

const candidate = (id: string, version: number, content = `content of ${id}`): MemoryCandidate => ({
  id,
  namespace: 'default',
  title: '',
  content,
  tags: ['a'],
  type: 'semantic',
  agentId: null,
  committedVersion: version,
  injectionFlagged: false,
  fingerprint: null,
});

describe('CandidateCache', () => {
  it('answers only for the version it holds, and drops an entry asked for at another version', () => {
    const cache = new CandidateCache();
    cache.put(candidate('m1', 2, 'v2'));
    expect(cache.get('m1', 2)?.content).toBe('v2');
    expect(cache.get('m1', 3)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.heldChars).toBe(0);
    cache.put(candidate('m1', 3, 'v3'));
    expect(cache.get('m1', 3)?.content).toBe('v3');
    expect(cache.size).toBe(1);
  });

  it('keeps the text it holds within its character budget, and forgets a deleted memory', () => {
    const cache = new CandidateCache(100, 25);
    cache.put(candidate('a', 1, 'x'.repeat(10)));
    cache.put(candidate('b', 1, 'y'.repeat(10)));
    expect(cache.heldChars).toBe(20);
    cache.put(candidate('c', 1, 'z'.repeat(10))); // 30 > 25: the least recently used goes
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.heldChars).toBe(20);
    cache.put(candidate('huge', 1, 'h'.repeat(26))); // larger than the whole budget: handed back, not held
    expect(cache.get('huge', 1)).toBeUndefined();
    expect(cache.size).toBe(2);
    cache.delete('b');
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.heldChars).toBe(10);
  });

  it('evicts the least recently used entry past its capacity', () => {
    const cache = new CandidateCache(2);
    cache.put(candidate('a', 1));
    cache.put(candidate('b', 1));
    expect(cache.get('a', 1)).toBeDefined(); // a is now the most recent
    cache.put(candidate('c', 1));
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBeDefined();
    expect(cache.get('c', 1)).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it('hands out frozen entries, so no caller can change what the next one reads', () => {
    const cache = new CandidateCache();
    const held = cache.put(candidate('m1', 1));
    expect(() => {
      (held as { content: string }).content = 'changed';
    }).toThrow(TypeError);
    expect(() => held.tags.push('b')).toThrow(TypeError);
    expect(cache.get('m1', 1)?.content).toBe('content of m1');
  });
});
