import { describe, expect, it } from 'vitest';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedSearchIndex, type ChannelName } from '../../adapters/embedded/search-index.js';
import { HashingEmbedder } from '../../adapters/embeddings/hashing.js';
import type { SearchMode, SearchQuery } from '../../server/ports/search-index.js';
import { contextSeeds, lendToNeighbours } from '../../server/services/search/episodic-context.js';
import { fuseChannels, rrf, type Channel } from '../../server/services/search/fusion.js';
import { rankCandidates } from '../../server/services/search/ranking.js';
import { DEFAULT_CONTEXT, DEFAULT_FUSION, type FusionConfig } from '../../server/services/search/tuning.js';
import { extractEntities } from '../../server/text/entities.js';
import { indexedMemory } from '../support/indexed-memory.js';

/**
 * The fusion both profiles run (server/services/search/fusion.ts): given the channel lists, it gives the
 * embedded index's ranking; the Qdrant adapter builds its answer through the same function
 * (test/unit/qdrant-wire.test.ts, "ranks through the shared functions").
 */

const e = new HashingEmbedder(128);
const NOTES = [
  'Sarah signed up for a pottery class; the kiln at the studio is huge.',
  'Glazed ceramic bowls in pottery class and fired them in the kiln.',
  'Replaced the bicycle chain and adjusted the derailleur gears with Susan.',
  'Rode the mountain bike on the forest trail and fixed a flat tyre.',
  'Watched Jupiter through the telescope with Peter from the astronomy club.',
  'Baked sourdough bread; Peter brought the starter from his bakery.',
  'Opened a savings account and set a monthly budget with the accountant.',
  'Emma sells glazed bowls at the ceramics studio in Lisbon.',
  'Sarah and Emma went cycling in Lisbon on touring bikes.',
  'The astronomy club met about the lunar eclipse and telescopes.',
];

async function loaded() {
  const index = new EmbeddedSearchIndex(openInMemoryDatabase(), { model: e.model, dimension: 128 });
  for (let i = 0; i < NOTES.length; i++) {
    await index.upsert(
      't',
      indexedMemory(`m${i}`, NOTES[i]!, {
        vector: e.embedOne(NOTES[i]!),
        entities: extractEntities(NOTES[i]!),
        quality: i % 3 === 0 ? 0.2 : 0.8,
        createdAt: new Date(Date.UTC(2025, 0, 1, 9, i)).toISOString(),
      }),
    );
  }
  return index;
}

const NO_CONTEXT = { ...DEFAULT_CONTEXT, weight: { 'vector-only': 0, hybrid: 0, 'hybrid+graph': 0 } };

describe('fuseChannels', () => {
  const a: Channel<string> = {
    name: 'keyword',
    weight: 1,
    hits: [
      { key: 'x', score: 10 },
      { key: 'y', score: 5 },
    ],
  };
  const b: Channel<string> = {
    name: 'dense',
    weight: 0.5,
    hits: [
      { key: 'y', score: 0.9 },
      { key: 'z', score: 0.1 },
    ],
  };

  it('keeps a lone channel’s raw scores and leaves out channels at weight 0 or without hits', () => {
    expect(fuseChannels([a, { ...b, hits: [] }], DEFAULT_FUSION.method)).toEqual(
      new Map([
        ['x', 10],
        ['y', 5],
      ]),
    );
    expect(fuseChannels([a, { ...b, weight: 0 }], { kind: 'rrf', k: 60 })).toEqual(
      new Map([
        ['x', 10],
        ['y', 5],
      ]),
    );
  });

  it('RRF is Σ weight / (k + rank) with ranks from 1, not Qdrant’s 1 / ((rank)/weight + k − 1)', () => {
    const f = fuseChannels([a, b], { kind: 'rrf', k: 60 });
    expect(f.get('x')).toBeCloseTo(1 / 61, 15);
    expect(f.get('y')).toBeCloseTo(1 / 62 + 0.5 / 61, 15);
    expect(f.get('z')).toBeCloseTo(0.5 / 62, 15);
    // Qdrant's weighted RRF (k sent as 61) gives z 1/(2/0.5 + 60) = 1/64: about twice the say.
    expect(1 / (2 / 0.5 + 61 - 1)).toBeGreaterThan(1.9 * f.get('z')!);
    expect(rrf([a, b], 60)).toEqual(f);
  });
});

describe('episodic context', () => {
  it('seeds are the best n by score, ties to the lower key, whatever the order they arrive in', () => {
    const fused = new Map([
      ['d', 1],
      ['b', 2],
      ['a', 1],
      ['c', 1],
      ['e', 0.5],
    ]);
    const before = (x: string, y: string) => x < y;
    expect(contextSeeds(fused, 3, before)).toEqual([
      ['b', 2],
      ['a', 1],
      ['c', 1],
    ]);
    expect(contextSeeds(new Map([...fused].reverse()), 3, before)).toEqual(contextSeeds(fused, 3, before));
    expect(contextSeeds(fused, 0, before)).toEqual([]);
    expect(contextSeeds(fused, 10, before).map(([k]) => k)).toEqual(['b', 'a', 'c', 'd', 'e']);
  });

  it('lends weight × score to each seed’s neighbours, the largest loan when two seeds share one', () => {
    const fused = new Map([
      ['a', 1],
      ['b', 0.5],
    ]);
    const seeds = contextSeeds(fused, 2, (x, y) => x < y);
    lendToNeighbours(fused, seeds, 0.6, (k) => (k === 'a' ? { before: 'n', after: 'b' } : { before: 'n', after: null }));
    expect(fused).toEqual(
      new Map([
        ['a', 1],
        ['b', 0.5 + 0.6],
        ['n', 0.6],
      ]),
    );
  });
});

describe('the shared fusion gives the embedded ranking for given channel lists', () => {
  const modes: { mode: SearchMode; channels: ChannelName[] }[] = [
    { mode: 'hybrid', channels: ['keyword', 'dense'] },
    { mode: 'hybrid+graph', channels: ['keyword', 'dense', 'graph'] },
  ];
  const methods: FusionConfig['method'][] = [DEFAULT_FUSION.method, { kind: 'weighted', normalization: 'zscore' }, { kind: 'rrf', k: 60 }];

  it('for every mode and method', async () => {
    const index = await loaded();
    let compared = 0;
    for (const method of methods) {
      const fusion: FusionConfig = { ...DEFAULT_FUSION, method };
      for (const { mode, channels } of modes) {
        for (const text of ['pottery kiln', 'Sarah in Lisbon', 'bike chain tyre', 'telescope astronomy Peter', 'bowls']) {
          const query: SearchQuery = { text, vector: e.embedOne(text), mode, limit: 10, filters: { namespaces: null, minQuality: 0.5 } };
          const weights = mode === 'hybrid' ? { ...fusion.weights.hybrid, graph: 0 } : fusion.weights['hybrid+graph'];
          const lists: Channel<string>[] = [];
          const quality = new Map<string, number>();
          for (const name of channels) {
            // Every candidate a channel has (limit = its depth), best first, keyed by memory id.
            const res = await index.channelSearch('t', name, { ...query, limit: 100, filters: { namespaces: null } });
            lists.push({ name, weight: weights[name], hits: res.hits.map((h) => ({ key: h.memoryId, score: h.score })) });
          }
          for (let i = 0; i < NOTES.length; i++) quality.set(`m${i}`, i % 3 === 0 ? 0.2 : 0.8);
          const fused = fuseChannels(lists, method);
          const expected = rankCandidates(
            [...fused].map(([memoryId, score]) => ({ memoryId, score, quality: quality.get(memoryId)! })),
            0,
            10,
            0.5,
          );
          const got = await index.search('t', query, { fusion, context: NO_CONTEXT });
          expect(
            got.hits.map((h) => h.memoryId),
            `${mode} ${method.kind}: ${text}`,
          ).toEqual(expected.hits.map((h) => h.memoryId));
          got.hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected.hits[i]!.score, 12));
          expect(got.total).toBe(expected.total);
          compared += got.hits.length;
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('with episodic context: the memories written just before and after each seed (one a minute here) borrow its score', async () => {
    const index = await loaded();
    const neighbours = (k: string) => {
      const i = Number(k.slice(1));
      return { before: i > 0 ? `m${i - 1}` : null, after: i < NOTES.length - 1 ? `m${i + 1}` : null };
    };
    for (const { mode, channels } of modes) {
      for (const text of ['pottery kiln', 'Sarah in Lisbon', 'telescope astronomy Peter']) {
        const query: SearchQuery = { text, vector: e.embedOne(text), mode, limit: 10, filters: { namespaces: null } };
        const weights = mode === 'hybrid' ? { ...DEFAULT_FUSION.weights.hybrid, graph: 0 } : DEFAULT_FUSION.weights['hybrid+graph'];
        const lists: Channel<string>[] = [];
        for (const name of channels) {
          const res = await index.channelSearch('t', name, { ...query, limit: 100 });
          lists.push({ name, weight: weights[name], hits: res.hits.map((h) => ({ key: h.memoryId, score: h.score })) });
        }
        const fused = fuseChannels(lists, DEFAULT_FUSION.method);
        lendToNeighbours(
          fused,
          contextSeeds(fused, DEFAULT_CONTEXT.candidates, (x, y) => x < y),
          DEFAULT_CONTEXT.weight[mode],
          neighbours,
        );
        const expected = rankCandidates(
          [...fused].map(([memoryId, score]) => ({ memoryId, score, quality: 1 })),
          0,
          10,
          undefined,
        );
        const got = await index.search('t', query);
        expect(
          got.hits.map((h) => h.memoryId),
          `${mode}: ${text}`,
        ).toEqual(expected.hits.map((h) => h.memoryId));
        got.hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected.hits[i]!.score, 12));
        expect(got.total).toBe(expected.total);
      }
    }
  });
});
