import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NEAR_DUPLICATE_THRESHOLD, duplicateSimilarity, findDuplicate } from '../../server/services/consolidation/dedupe.js';
import {
  contentFingerprint,
  cosineSimilarity,
  jaccardSimilarity,
  normalizeText,
  shingles,
  similarityTokens,
  textSimilarity,
} from '../../server/services/consolidation/similarity.js';

describe('normalizeText', () => {
  it('folds case, accents, punctuation, whitespace and invisible characters', () => {
    expect(normalizeText('  Héllo,   WORLD!!  ')).toBe('hello world');
    expect(normalizeText('Don’t\u200B stop')).toBe('dont stop');
    expect(normalizeText('ＦＵＬＬＷＩＤＴＨ')).toBe('fullwidth');
    expect(normalizeText('a-b_c/d')).toBe('a b c d');
    expect(normalizeText('')).toBe('');
  });

  it('similarityTokens drops function words and folds a plural s', () => {
    expect(similarityTokens('The user lives in the mountains')).toEqual(['user', 'live', 'mountain']);
    expect(similarityTokens('Paris is nice')).toEqual(['paris', 'nice']);
    expect(similarityTokens('to be or not to be')).toEqual(['not']);
    expect(similarityTokens('to be')).toEqual(['to', 'be']);
  });
});

describe('contentFingerprint', () => {
  it('is the sha256 hex of the normalised text', () => {
    expect(contentFingerprint('Hello, World')).toBe(createHash('sha256').update('hello world').digest('hex'));
    expect(contentFingerprint('x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is equal for trivially different texts and different for different texts', () => {
    expect(contentFingerprint('Alice lives in Paris.')).toBe(contentFingerprint('  alice LIVES in paris '));
    expect(contentFingerprint('Alice lives in Paris.')).not.toBe(contentFingerprint('Alice lives in Berlin.'));
  });
});

describe('similarity measures', () => {
  it('cosine and jaccard basics', () => {
    expect(cosineSimilarity([], [])).toBe(1);
    expect(cosineSimilarity(['a'], [])).toBe(0);
    expect(cosineSimilarity(['a', 'b'], ['a', 'b'])).toBeCloseTo(1, 10);
    expect(cosineSimilarity(['a', 'b'], ['a', 'c'])).toBeCloseTo(0.5, 10);
    expect(jaccardSimilarity(new Set(['a', 'b']), new Set(['b', 'c']))).toBeCloseTo(1 / 3, 10);
    expect(shingles(['a', 'b', 'c'], 2)).toEqual(new Set(['a b', 'b c']));
    expect(shingles(['a'], 2)).toEqual(new Set(['a']));
  });

  it('textSimilarity: identical normalised texts are 1, one changed fact word is well below the threshold', () => {
    expect(textSimilarity('Alice lives in Paris.', 'alice lives in paris')).toBe(1);
    expect(textSimilarity('Alice lives in Paris', 'Alice lives in Berlin')).toBe(0.5);
    expect(textSimilarity('The user prefers the dark mode in every application', 'User prefers dark mode in every application.')).toBe(1);
    expect(
      textSimilarity(
        'Alice lives in Paris and works at Acme as a senior engineer',
        'Alice lives in Paris and works at Globex as a senior engineer',
      ),
    ).toBeLessThan(NEAR_DUPLICATE_THRESHOLD);
  });
});

describe('findDuplicate', () => {
  const existing = [
    { id: 'm1', content: 'Alice lives in Paris.' },
    { id: 'm2', content: 'User likes green tea with honey in the morning before work' },
    { id: 'm3', content: 'The quarterly review with the finance team is on Tuesday at 3pm in room 4' },
    { id: 'm4', content: 'Dan is vegetarian and avoids fish' },
  ];

  it('finds an exact (normalised) duplicate with similarity 1', () => {
    expect(findDuplicate({ content: '  alice LIVES in paris ' }, existing)).toEqual({ id: 'm1', similarity: 1 });
  });

  it('exact match ignores titles', () => {
    expect(
      findDuplicate({ content: 'Alice lives in Paris', title: 'Different' }, [{ id: 'x', content: 'alice lives in paris', title: 'Home' }]),
    ).toEqual({
      id: 'x',
      similarity: 1,
    });
  });

  it('finds a near duplicate (function words, plural s, punctuation)', () => {
    const r = findDuplicate({ content: 'The user likes green tea with honey in the mornings, before work!' }, existing);
    expect(r?.id).toBe('m2');
    expect(r!.similarity).toBeGreaterThanOrEqual(NEAR_DUPLICATE_THRESHOLD);
    expect(r!.similarity).toBeLessThanOrEqual(1);
  });

  it('does not match a different fact', () => {
    expect(findDuplicate({ content: 'Alice lives in Berlin.' }, existing)).toBeNull();
    expect(findDuplicate({ content: 'User likes green tea with honey in the evening before work' }, existing)).toBeNull();
    expect(findDuplicate({ content: 'Bob likes coffee' }, existing)).toBeNull();
  });

  it('numbers guard: a changed number is never a near duplicate, however long the text', () => {
    const changed = { content: 'The quarterly review with the finance team is on Tuesday at 4pm in room 4' };
    expect(duplicateSimilarity(changed, existing[2]!)).toBe(0);
    expect(findDuplicate(changed, existing)).toBeNull();
  });

  it('negation guard: adding a negation is never a near duplicate', () => {
    const negated = { content: 'Dan is not vegetarian and avoids fish' };
    expect(duplicateSimilarity(negated, existing[3]!)).toBe(0);
    expect(findDuplicate(negated, existing)).toBeNull();
  });

  it('titles count when both sides have one', () => {
    const a = { content: 'Prefers window seats on long flights and aisle seats on short hops', title: 'Flight seats' };
    const b = { id: 'b', content: 'Prefers window seats on long flights and aisle seats on short hop', title: 'Flight seats' };
    const c = { id: 'c', content: b.content, title: 'Completely unrelated heading words here' };
    expect(findDuplicate(a, [b])?.id).toBe('b');
    expect(duplicateSimilarity(a, c)).toBeLessThan(duplicateSimilarity(a, b));
  });

  it('picks the most similar candidate at or above the threshold', () => {
    const candidate = { content: 'Alice enjoys long walks along the river in Paris every Sunday morning' };
    const list = [
      { id: 'far', content: 'Bob enjoys short runs' },
      { id: 'near', content: 'Alice enjoys long walks along the river in Paris every Sunday mornings' },
      { id: 'exactish', content: 'alice enjoys long walks along the river in paris every sunday morning!' },
    ];
    expect(findDuplicate(candidate, list)).toEqual({ id: 'exactish', similarity: 1 });
    expect(findDuplicate(candidate, list.slice(0, 2))?.id).toBe('near');
  });

  it('respects a custom threshold and validates it', () => {
    const pair = [{ id: 'p', content: 'Alice lives in Berlin' }];
    expect(findDuplicate({ content: 'Alice lives in Paris' }, pair)).toBeNull();
    expect(findDuplicate({ content: 'Alice lives in Paris' }, pair, { threshold: 0.5 })).toEqual({ id: 'p', similarity: 0.5 });
    expect(() => findDuplicate({ content: 'x' }, pair, { threshold: 0 })).toThrow(RangeError);
    expect(() => findDuplicate({ content: 'x' }, pair, { threshold: 1.5 })).toThrow(RangeError);
  });

  it('empty list → null; threshold is 0.9', () => {
    expect(findDuplicate({ content: 'anything' }, [])).toBeNull();
    expect(NEAR_DUPLICATE_THRESHOLD).toBe(0.9);
  });
});
