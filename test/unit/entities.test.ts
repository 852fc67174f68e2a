import { describe, expect, it } from 'vitest';
import { extractEntities, normalizeEntityKey, singularize } from '../../server/text/entities.js';

const keys = (text: string, type?: string) =>
  extractEntities(text)
    .filter((e) => !type || e.type === type)
    .map((e) => e.key);

describe('extractEntities', () => {
  it('finds people, places and organisations with normalised keys', () => {
    const e = extractEntities('Sarah met Dr. Tomasz Novak from Microsoft in Lisbon last spring.');
    const byKey = new Map(e.map((x) => [x.key, x.type]));
    expect(byKey.get('sarah')).toBe('person');
    expect(byKey.get('microsoft')).toBe('organization');
    expect(byKey.get('lisbon')).toBe('place');
    expect([...byKey.keys()].some((k) => k.includes('novak'))).toBe(true);
  });

  it('treats a chat speaker prefix as a person', () => {
    expect(keys('Zorblax: I finally fixed the bicycle chain.', 'person')).toEqual(['zorblax']);
  });

  it('gives noun phrases and their nouns as things, singular, without generic nouns', () => {
    const k = keys('I signed up for pottery classes and a chess club this week.', 'thing');
    expect(k).toContain('pottery class');
    expect(k).toContain('pottery');
    expect(k).toContain('chess club');
    expect(k).not.toContain('week');
    expect(k).not.toContain('i');
  });

  it('keeps absolute dates and drops relative ones', () => {
    const d = keys('We met on 7 May 2023, again on 2024-01-15 and yesterday; the launch was in 2021.', 'date');
    expect(d).toContain('7 may 2023');
    expect(d).toContain('15 january 2024');
    expect(d).toContain('2021');
    expect(d).not.toContain('yesterday');
    expect(keys('See you tomorrow or next week', 'date')).toEqual([]);
  });

  it('merges possessives and case into one key', () => {
    expect(keys("What do Sarah's kids like?", 'person')).toEqual(['sarah']);
    expect(normalizeEntityKey("  SÁRAH's  ")).toBe('sarah');
  });

  it('is deterministic, bounded, and survives odd input', () => {
    const long = Array.from({ length: 60 }, (_, i) => `Person${i} visited Town${i}.`).join(' ');
    expect(extractEntities(long).length).toBeLessThanOrEqual(16);
    expect(extractEntities(long, { max: 5 })).toHaveLength(5);
    expect(extractEntities('')).toEqual([]);
    expect(extractEntities('"*)(-- NEAR AND 😀 ☃')).toBeInstanceOf(Array);
    expect(extractEntities('Alice went to Paris.')).toEqual(extractEntities('Alice went to Paris.'));
  });
});

describe('singularize', () => {
  it('handles common plural endings and leaves the rest', () => {
    expect(singularize('classes')).toBe('class');
    expect(singularize('stories')).toBe('story');
    expect(singularize('books')).toBe('book');
    expect(singularize('glass')).toBe('glass');
    expect(singularize('bus')).toBe('bus');
  });
});
