import { describe, expect, it } from 'vitest';
import { qualityBreakdown, qualityScore } from '../../server/services/consolidation/quality.js';

const q = (content: string, extra: { title?: string; tags?: string[] } = {}) => qualityScore({ content, ...extra });

describe('qualityScore', () => {
  it('near-empty and pure noise score 0', () => {
    for (const content of ['', '   ', '!!!???', '1234 5678', '}{][ ;;;; ##### @@@', 'a']) {
      expect(q(content)).toBe(0);
    }
  });

  it('boilerplate and placeholders score low (< 0.2)', () => {
    for (const content of [
      'test',
      'asdf',
      'ok',
      'TODO',
      'n/a',
      'hello world',
      'Lorem ipsum dolor sit amet, consectetur adipiscing elit.',
      'untitled',
    ]) {
      expect(q(content), content).toBeLessThan(0.2);
    }
    expect(qualityBreakdown({ content: 'test' }).penalty).toBe(0.2);
  });

  it('keyboard mashing is penalised', () => {
    expect(q('sdfghjkl')).toBe(0);
    expect(q('asdkjh qwjkeh zxcmnb')).toBeLessThan(0.2);
    expect(qualityBreakdown({ content: 'asdkjh qwjkeh zxcmnb' }).penalty).toBeCloseTo(1 / 3, 10);
  });

  it('informative, specific memories score high (> 0.8)', () => {
    expect(q('Alice moved to Berlin in March 2024 to join Globex as a senior data engineer.')).toBeGreaterThan(0.8);
    expect(q('Meeting notes: discussed Q3 roadmap with Bob and Carol; decided to ship v2.1 on 2024-09-15.')).toBeGreaterThan(0.8);
  });

  it('ordinary preferences are mid-range (usable with a 0.5 threshold)', () => {
    const s = q('User prefers concise answers.');
    expect(s).toBeGreaterThan(0.5);
    expect(s).toBeLessThan(0.8);
  });

  it('repetition lowers diversity and the score', () => {
    const repeated = qualityBreakdown({ content: 'buy milk buy milk buy milk buy milk' });
    expect(repeated.diversity).toBe(0);
    expect(repeated.score).toBeLessThan(q('Buy milk and eggs on the way home from work.'));
  });

  it('is monotonic in informativeness', () => {
    const vague = q('Something happened.');
    const some = q('Alice likes stuff.');
    const rich = q('Alice moved to Berlin in March 2024 to join Globex as a senior data engineer.');
    expect(vague).toBeLessThan(some);
    expect(some).toBeLessThan(rich);
  });

  it('a title and tags add structure', () => {
    const content = 'Alice moved to Berlin in March 2024 to join Globex as a senior data engineer.';
    const plain = qualityBreakdown({ content });
    const full = qualityBreakdown({ content, title: 'Alice relocation', tags: ['people'] });
    expect(plain.structure).toBe(0.5);
    expect(full.structure).toBe(1);
    expect(full.score).toBeGreaterThan(plain.score);
    expect(qualityBreakdown({ content, title: '  ', tags: [' '] }).structure).toBe(0.5);
  });

  it('combines the documented components exactly', () => {
    const b = qualityBreakdown({ content: 'User prefers concise answers.' });
    const expected = (0.35 * b.length + 0.2 * b.diversity + 0.3 * b.specificity + 0.15 * b.structure) * b.penalty;
    expect(b.score).toBeCloseTo(Math.round(expected * 1000) / 1000, 10);
    expect(b.length).toBeCloseTo(Math.log2(5) / Math.log2(26), 10);
  });

  it('is always in [0, 1] and deterministic', () => {
    const samples = ['x'.repeat(50_000), 'word '.repeat(5_000), 'Привет, меня зовут Иван, я живу в Москве.', '🙂🙂🙂', 'A1 B2 C3 D4'];
    for (const content of samples) {
      const s = q(content);
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
      expect(q(content)).toBe(s);
    }
  });
});
