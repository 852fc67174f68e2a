import { afterAll, describe, expect, it } from 'vitest';
import { ThreadedFactReader } from '../../adapters/threads/fact-reader.js';
import { inThreadFactReader } from '../../server/services/knowledge/engines/in-thread-fact-reader.js';

/** The kg engine's facts read on a worker thread are the ones read in line, in input order. Texts written for this test. */
const texts = [
  'Ingrid Solberg works at Fjordlab as a marine biologist.',
  'Nothing about anyone here.',
  'Tomas Berg lives in Bergen. He reports to Ingrid Solberg.',
  '',
  'Reach Tomas at tomas.berg@fjordlab.no or +47 912 34 567.',
];

const reader = new ThreadedFactReader(1);
afterAll(async () => {
  await reader.close();
});

describe('ThreadedFactReader', () => {
  it('answers what the in-line reader answers, one list per text in order', async () => {
    const threaded = await reader.read(texts);
    expect(threaded).toEqual(await inThreadFactReader.read(texts));
    expect(threaded.map((facts) => facts.map((f) => f.predicate))).toEqual([
      ['works_at'],
      [],
      ['lives_in', 'reports_to'],
      [],
      ['email', 'phone'],
    ]);
  });

  it('answers nothing for no texts without a round trip', async () => {
    expect(await reader.read([])).toEqual([]);
  });
});
