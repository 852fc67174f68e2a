import { describe, expect, it } from 'vitest';
import { extractEntities } from '../../server/text/entities.js';
import { normaliseName } from '../../server/text/fact-vocabulary.js';
import { MAX_MENTIONS_PER_TEXT, mentionedNames } from '../../server/text/name-mentions.js';

/** What a consolidated memory reports as the names it mentions (the identity keys objects are found by). */
describe('mentionedNames', () => {
  const cases: { text: string; includes: string[]; excludes?: string[] }[] = [
    { text: 'Bryony Castellanos works at Wexford Dynamics as a buyer.', includes: ['bryony castellanos', 'wexford dynamics', 'bryony'] },
    // A capitalised word before a name (sentence start, a heading) does not hide it.
    { text: 'Yesterday Bryony Castellanos called.', includes: ['bryony castellanos', 'yesterday bryony castellanos'] },
    // Particles inside a name keep it whole; they never start or end one.
    { text: 'She moved to the Bank of Lower Fenwick last spring.', includes: ['bank of lower fenwick', 'lower fenwick'], excludes: ['of'] },
    { text: 'Talked to Ines de Valcourt about it.', includes: ['ines de valcourt'] },
    // Legal suffixes, possessives, diacritics and case fold as the identity key does.
    { text: "Dropped by Quellstrom GmbH's office.", includes: ['quellstrom'] },
    { text: 'Lunch with ÉLODIE MARCHETTI.', includes: ['elodie marchetti'] },
    { text: 'Procter & Gamble sent samples.', includes: ['procter and gamble'] },
    // A full stop does not break an abbreviated name; a comma does.
    { text: 'Moved from St. Aldric to Harrowgate.', includes: ['st aldric', 'harrowgate'] },
    { text: 'Invited Norberto, Quintessa and Ravi.', includes: ['norberto', 'quintessa', 'ravi'], excludes: ['norberto quintessa'] },
    // Lower-case words end a name.
    { text: 'Ottoline met them at the Corvid Exchange today.', includes: ['ottoline', 'corvid exchange'], excludes: ['ottoline met'] },
    { text: 'nothing capitalised here at all', includes: [], excludes: ['nothing', 'here'] },
  ];
  it.each(cases)('$text', ({ text, includes, excludes = [] }) => {
    const names = mentionedNames(text);
    for (const n of includes) expect(names).toContain(n);
    for (const n of excludes) expect(names).not.toContain(n);
  });

  it('gives each span the key normaliseName gives it (the identity key an object of that name has)', () => {
    const text = "Dr. Wilhelmina O'Rourke-Ståhl's team at The Hollis & Vane Corp. met Ana de Souza.";
    const names = mentionedNames(text);
    for (const span of ["Dr. Wilhelmina O'Rourke-Ståhl's", 'The Hollis & Vane Corp.', 'Ana de Souza', 'Vane Corp']) {
      expect(names).toContain(normaliseName(span));
    }
    expect(names).toContain('wilhelmina orourke stahl');
    expect(names).toContain('hollis and vane');
  });

  it('adds the names the entity tagger found, also when written in lower case', () => {
    const text = 'had coffee with sarah yesterday';
    expect(mentionedNames(text)).toEqual([]);
    const entities = extractEntities(text);
    expect(entities.some((e) => e.type === 'person')).toBe(true);
    expect(mentionedNames(text, entities)).toContain('sarah');
  });

  it('leaves dates out of the entity names', () => {
    expect(mentionedNames('', [{ key: '7 may 2024', name: '7 May 2024', type: 'date' }])).toEqual([]);
  });

  it(`reports at most ${MAX_MENTIONS_PER_TEXT} names for one text`, () => {
    const text = Array.from({ length: 400 }, (_, i) => `Name${i} Other${i}, `).join('');
    const names = mentionedNames(text);
    expect(names).toHaveLength(MAX_MENTIONS_PER_TEXT);
    expect(names[0]).toBe('name0');
  });
});
