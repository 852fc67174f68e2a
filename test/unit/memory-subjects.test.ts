import { describe, expect, it } from 'vitest';
import { detectContradiction } from '../../server/services/consolidation/contradiction.js';
import { qualityScore } from '../../server/services/consolidation/quality.js';
import { quickQualityScore } from '../../server/services/memories/quick-quality.js';
import { contentCues, mayContradict, subjectKeys } from '../../server/services/memories/subjects.js';

describe('subject keys', () => {
  it('puts multi-word names first, then single names, then the user', () => {
    expect(subjectKeys('Alice Smith lives in Paris')).toEqual(['alice smith', 'alice', 'smith', 'paris']);
    expect(subjectKeys('I moved to Berlin last year')).toEqual(['berlin', 'user']);
    expect(subjectKeys("The user's favourite colour is teal")).toEqual(['user']);
  });

  it('falls back to the first content word, and ignores sentence-initial function words', () => {
    expect(subjectKeys('the deploy pipeline uses blue-green releases')).toEqual(['deploy']);
    expect(subjectKeys('The Meeting with Bob is on Monday')).toEqual(['meeting', 'bob']);
    expect(subjectKeys('')).toEqual([]);
  });
});

describe('contradiction pre-filter', () => {
  const pairs: [newer: string, older: string][] = [
    ['Alice moved to Berlin', 'Alice lives in Paris'],
    ['Alice Smith moved to Berlin', 'Alice lives in Paris'],
    ["Carol's favourite colour is green", "Carol's favourite colour is blue"],
    ['Dan is not vegetarian', 'Dan is vegetarian'],
    ['Dan is vegan', 'Dan is an omnivore'],
    ['Erin works at Globex', 'Erin works at Acme'],
    ['Erin left Acme', 'Erin works at Acme'],
    ['Frank is married to Heidi', 'Frank is married to Grace'],
    ['Bob is 31 years old', 'Bob is 30 years old'],
    ['I moved to Milan', 'I live in Rome'],
    ['Grace does not like coffee', 'Grace likes coffee'],
    ['Ivan no longer lives in Oslo', 'Ivan lives in Oslo'],
    ['Judy is a doctor', 'Judy is a teacher'],
    ['Mallory is single', 'Mallory is married'],
  ];

  it('lets through every pair the offline detector flags', () => {
    let flagged = 0;
    for (const [newer, older] of pairs) {
      if (!detectContradiction({ content: newer }, { content: older }).contradicts) continue;
      flagged++;
      expect(mayContradict(contentCues(newer), contentCues(older)), `${newer} / ${older}`).toBe(true);
    }
    expect(flagged).toBeGreaterThanOrEqual(10);
  });

  it('skips pairs that cannot conflict: other person, other attribute, no negation', () => {
    expect(mayContradict(contentCues('Alice Smith lives in Paris'), contentCues('Alice Jones moved to Berlin'))).toBe(false);
    expect(mayContradict(contentCues('Alice lives in Paris'), contentCues('Alice works at Acme'))).toBe(false);
    expect(mayContradict(contentCues('Alice visited Rome in May'), contentCues('Alice visited Paris in June'))).toBe(false);
    expect(mayContradict(contentCues('Alice likes tea'), contentCues('Alice lives in Paris'))).toBe(false);
  });
});

describe('quick quality estimate', () => {
  const texts = [
    'Alice Smith moved from Paris to Berlin in March 2024 to join Globex as a data engineer.',
    'Bob prefers green tea in the afternoon and enjoys pottery on weekends.',
    'Meeting note: Carol will present the quarterly budget on Tuesday at 3pm.',
    'buy milk',
    'test',
    'asdfghjkl qwrtzpxx',
    'The deploy pipeline uses blue-green releases with a manual approval step.',
  ];

  it('ranks like the NLP score and stays close to it', () => {
    for (const t of texts) {
      const fast = quickQualityScore({ content: t });
      expect(fast).toBeGreaterThanOrEqual(0);
      expect(fast).toBeLessThanOrEqual(1);
      expect(Math.abs(fast - qualityScore({ content: t })), t).toBeLessThan(0.2);
    }
    expect(quickQualityScore({ content: texts[0]! })).toBeGreaterThan(quickQualityScore({ content: 'buy milk' }));
    expect(quickQualityScore({ content: 'test' })).toBeLessThan(0.15);
  });

  it('scores near-empty text 0 and rewards a title and tags', () => {
    expect(quickQualityScore({ content: '!!!' })).toBe(0);
    expect(quickQualityScore({ content: '1234' })).toBe(0);
    const plain = quickQualityScore({ content: 'Bob likes tea' });
    expect(quickQualityScore({ content: 'Bob likes tea', title: 'Drinks', tags: ['pref'] })).toBeGreaterThan(plain);
  });
});
