import { describe, expect, it } from 'vitest';
import { mentionedNames } from '../../bench/knowledge/mentioned-names.js';

describe('bench:knowledge mentionedNames', () => {
  it.each([
    { contents: ['Mira Holt works at Quillon as a chemist.'], people: ['Mira Holt'], organizations: ['Quillon'] },
    { contents: ['Mira Holt lives in Brno.', 'Tomas Vey moved to Oslo.'], people: ['Mira Holt', 'Tomas Vey'], organizations: [] },
    { contents: ['Tomas Vey works at Red Kestrel now.'], people: ['Tomas Vey'], organizations: ['Red Kestrel'] },
    { contents: ['Meeting note 4: Mira Holt will present the plan.'], people: [], organizations: [] },
  ])('finds the stated names in $contents', ({ contents, people, organizations }) => {
    expect(mentionedNames(contents)).toEqual({ people, organizations });
  });

  it('ranks names by how many memories state facts about them, then by name', () => {
    const contents = [
      'Ana Ruiz lives in Lyon.',
      'Bo Lind lives in Riga.',
      'Bo Lind works at Fenwick as a pilot.',
      'Cy Dunn lives in Kyiv.',
    ];
    expect(mentionedNames(contents).people).toEqual(['Bo Lind', 'Ana Ruiz', 'Cy Dunn']);
  });
});
