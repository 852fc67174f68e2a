import { describe, expect, it } from 'vitest';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { HashingEmbedder } from '../../adapters/embeddings/hashing.js';
import type { IndexChange } from '../../server/ports/search-index.js';
import { netIndexChanges } from '../../server/services/search/index-changes.js';
import { indexedMemory } from '../support/indexed-memory.js';

const up = (id: string, text = id): IndexChange => ({ op: 'upsert', doc: indexedMemory(id, text) });
const rm = (memoryId: string): IndexChange => ({ op: 'remove', memoryId });
const net = (changes: IndexChange[]) => {
  const n = netIndexChanges(changes);
  return { upserts: n.upserts.map((d) => `${d.memoryId}:${d.content}`), removals: n.removals.map((r) => r.memoryId) };
};

describe('what a batch of index changes leaves (the rule both index adapters apply)', () => {
  it.each([
    ['nothing', [], { upserts: [], removals: [] }],
    ['upserts and removals of different memories', [up('a'), rm('b'), up('c')], { upserts: ['a:a', 'c:c'], removals: ['b'] }],
    ['the last document of a memory written twice', [up('a', 'one'), up('a', 'two')], { upserts: ['a:two'], removals: [] }],
    ['a memory written then removed: removed', [up('a'), rm('a')], { upserts: [], removals: ['a'] }],
    ['a memory removed then written: written', [rm('a'), up('a', 'back')], { upserts: ['a:back'], removals: [] }],
    ['a memory removed twice: once', [rm('a'), rm('a')], { upserts: [], removals: ['a'] }],
    [
      'memories in the order of their first change',
      [up('b'), up('a'), rm('c'), up('b', 'again')],
      { upserts: ['b:again', 'a:a'], removals: ['c'] },
    ],
  ] as const)('%s', (_what, changes, expected) => {
    expect(net([...changes])).toEqual(expected);
  });
});

describe('the embedded index applies a batch', () => {
  const e = new HashingEmbedder(64);
  const doc = (id: string, text: string): IndexChange => ({
    op: 'upsert',
    doc: indexedMemory(id, text, { vector: e.embedOne(text) }),
  });
  const search = async (index: EmbeddedSearchIndex, text: string) =>
    (await index.search('t', { text, vector: e.embedOne(text), mode: 'hybrid', limit: 10, filters: { namespaces: null } })).hits.map(
      (h) => h.memoryId,
    );

  it('as applying its changes one by one would', async () => {
    const changes = [
      doc('a', 'harbour lighthouse'),
      doc('b', 'harbour crane'),
      rm('a'),
      doc('c', 'harbour ferry'),
      doc('b', 'mountain hut'),
    ];
    const batched = new EmbeddedSearchIndex(openInMemoryDatabase(), { model: e.model, dimension: 64 });
    await batched.applyChanges('t', changes);
    const single = new EmbeddedSearchIndex(openInMemoryDatabase(), { model: e.model, dimension: 64 });
    for (const c of changes) await (c.op === 'upsert' ? single.upsert('t', c.doc) : single.remove('t', c.memoryId));
    for (const q of ['harbour', 'mountain', 'lighthouse']) expect(await search(batched, q)).toEqual(await search(single, q));
    expect((await search(batched, 'harbour'))[0]).toBe('c');
    expect((await search(batched, 'mountain'))[0]).toBe('b');
    expect(await search(batched, 'lighthouse')).not.toContain('a');
  });
});
