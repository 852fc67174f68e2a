import type { Schemas } from '@qdrant/js-client-rest';
import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { runMigrations } from '../../adapters/embedded/database.js';
import { searchIndexMigration } from '../../adapters/embedded/migrations/0030_search_index.js';
import { searchTermsMigration } from '../../adapters/embedded/migrations/0031_search_terms.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { clientOf } from '../../adapters/qdrant/client.js';
import { tenantFilter } from '../../adapters/qdrant/filters.js';
import { fts5Idf, keywordRequest, lengthTotals } from '../../adapters/qdrant/keyword.js';
import { keywordStatistics } from '../../adapters/qdrant/search.js';
import { createQdrantSearchIndex } from '../../adapters/qdrant/search-index.js';
import { queryTermIds, type QueryTerm } from '../../adapters/qdrant/sparse.js';
import type { IndexedMemory } from '../../server/ports/search-index.js';
import { resolveSearchFilter } from '../../server/services/search/filter-policy.js';
import { indexedMemory } from '../support/indexed-memory.js';
import { QdrantEmulator } from '../support/qdrant-emulator.js';

/**
 * The keyword channel's arithmetic on Qdrant: statistics read by the adapter (`keywordStatistics`)
 * from memories it wrote to the emulated Qdrant, the formula request built from them, and what Qdrant
 * computes for that request (the emulator evaluates formulas as Qdrant does: float32 constants and
 * scores, float64 arithmetic) against the embedded index's BM25, which is FTS5's bm25() over the
 * tenant's own memories.
 */

const DOCS: IndexedMemory[] = [
  indexedMemory('a', 'Signed up for a woodworking class at the studio; the kiln is hot.', { title: 'Pottery class', tags: ['hobby'] }),
  indexedMemory('b', 'Glazed three ceramic bowls and fired them in the kiln.', { tags: ['woodworking', 'kiln'] }),
  indexedMemory('c', 'Watched Jupiter through the telescope; telescopes everywhere, running late.', { title: 'Telescopes' }),
  indexedMemory('d', 'Opened a savings account and runs a monthly budget spreadsheet for the studio.', {
    title: 'Budget',
    tags: ['finance'],
  }),
  indexedMemory('e', 'A naïve résumé written at the café near the running track.', { title: 'Café notes', tags: ['cafe'] }),
  indexedMemory('f', 'Bread '.repeat(40) + 'and a kiln.', { title: 'Long one' }),
  indexedMemory('g', 'Replaced the bicycle chain, the chain ring and the rear tyre.', { status: 'superseded' }),
  indexedMemory('h', 'An empty-ish note.', { title: '' }),
  indexedMemory('i', '', { title: '', tags: [] }),
];

const QUERIES = [
  'woodworking kiln',
  'telescopes running',
  'the studio budget',
  'cafe resume',
  'bread',
  'runs',
  'bike chain tyre',
  'kiln kiln',
];

/** Another tenant sharing much of the vocabulary, with many more memories. */
const OTHER = Array.from({ length: 60 }, (_, i) =>
  indexedMemory(`u-${i}`, `kiln chain woodworking bread telescope studio note ${i} ${'clay '.repeat(i % 5)}`),
);

/**
 * The tenant's keyword statistics as the adapter reads them (`keywordStatistics`), and the keyword
 * request built from them, from a collection of the emulated Qdrant holding `docs` of tenant `t` and
 * `others` of tenant `u`, written by the adapter's own write path.
 */
async function emulatedKeyword(url: string, collection: string, others: readonly IndexedMemory[]) {
  const index = await createQdrantSearchIndex({ url, collection, embedder: { model: 'm', dimension: 4, init: async () => {} } });
  await index.applyChanges(
    't',
    DOCS.map((doc) => ({ op: 'upsert', doc })),
  );
  if (others.length > 0)
    await index.applyChanges(
      'u',
      others.map((doc) => ({ op: 'upsert', doc })),
    );
  const client = clientOf({ url });
  const target = { client, collection };
  const policy = resolveSearchFilter({ namespaces: null, includeSuperseded: true })!;
  return {
    async request(text: string) {
      const terms = queryTermIds(text);
      const docs = client.count(collection, { filter: tenantFilter('t'), exact: true }).then((r) => r.count);
      return keywordRequest({
        terms,
        statistics: await keywordStatistics(target, 't', terms, docs),
        filter: tenantFilter('t', { filters: policy }),
        depth: 50,
        termLimit: 10_000,
        withPayload: ['memory_id'],
      });
    },
    /** What Qdrant answers to the request (the emulator computes formulas as Qdrant does). */
    async run(request: Schemas['QueryRequest']) {
      const res = await client.query(collection, request);
      return res.points.map((p) => ({ memoryId: (p.payload as { memory_id: string }).memory_id, score: p.score }));
    },
  };
}

async function embeddedKeyword(docs: readonly IndexedMemory[], texts: readonly string[]) {
  const db = new Database(':memory:');
  runMigrations(db, [searchIndexMigration, searchTermsMigration]);
  const index = new EmbeddedSearchIndex(db, { model: 'm', dimension: 4 });
  for (const d of docs) await index.upsert('t', d);
  for (const d of OTHER) await index.upsert('u', d);
  const out = new Map<string, { memoryId: string; score: number }[]>();
  for (const text of texts) {
    const res = await index.channelSearch('t', 'keyword', {
      text,
      vector: null,
      mode: 'hybrid',
      limit: 50,
      filters: { namespaces: null, includeSuperseded: true },
    });
    out.set(text, res.hits);
  }
  db.close();
  return out;
}

describe('FTS5 IDF', () => {
  it('is ln((N − n + 0.5)/(n + 0.5)), floored at 1e-6 when a term is in half the documents or more', () => {
    expect(fts5Idf(1, 10)).toBeCloseTo(Math.log(9.5 / 1.5), 12);
    expect(fts5Idf(5, 10)).toBe(1e-6);
    expect(fts5Idf(9, 10)).toBe(1e-6);
    expect(fts5Idf(0, 3)).toBeCloseTo(Math.log(3.5 / 0.5), 12);
  });
});

describe('keyword channel on Qdrant: the tenant’s own BM25', () => {
  const policy = resolveSearchFilter({ namespaces: null, includeSuperseded: true })!;

  it('scores exactly as the embedded index (FTS5 bm25() over the tenant), to float32 precision, whatever other tenants hold', async () => {
    const embedded = await embeddedKeyword(DOCS, QUERIES);
    const emulator = new QdrantEmulator();
    const url = await emulator.start();
    try {
      const alone = await emulatedKeyword(url, 'alone', []);
      const shared = await emulatedKeyword(url, 'shared', OTHER);
      let compared = 0;
      for (const text of QUERIES) {
        const request = await shared.request(text);
        // Another tenant's memories change nothing in the request: its statistics are the tenant's.
        expect(request, text).toEqual(await alone.request(text));
        const got = await shared.run(request!);
        const want = embedded.get(text)!;
        expect(
          got.map((h) => h.memoryId),
          text,
        ).toEqual(want.map((h) => h.memoryId));
        got.forEach((h, i) => {
          expect(Math.abs(h.score - want[i]!.score) / want[i]!.score, `${text} → ${h.memoryId}`).toBeLessThan(1e-6);
        });
        compared += got.length;
      }
      expect(compared).toBeGreaterThan(15);
    } finally {
      await emulator.stop();
    }
  });

  it('builds one prefetch per term the tenant holds, reading every holder, and a formula of FTS5’s BM25', () => {
    const terms: QueryTerm[] = [
      { id: 7, multiplicity: 1 },
      { id: 9, multiplicity: 2 },
      { id: 11, multiplicity: 1 },
    ];
    const filter = tenantFilter('t', { filters: policy });
    const req = keywordRequest({
      terms,
      statistics: {
        docs: 10,
        totalLength: 250,
        frequencies: new Map([
          [7, 3],
          [9, 20_000],
          [11, 0],
        ]),
      },
      filter,
      depth: 100,
      termLimit: 10_000,
      withPayload: ['memory_id'],
    })!;
    expect(req.prefetch).toEqual([
      { query: { indices: [7], values: [1] }, using: 'text', filter, limit: 3 + 16 },
      { query: { indices: [9], values: [1] }, using: 'text', filter, limit: 10_000 },
    ]);
    const perToken = (1.2 * 0.75) / 25;
    const term = (i: number, c: number) => ({
      mult: [c, { div: { left: `$score[${i}]`, right: { sum: [`$score[${i}]`, 1.2 * 0.25, { mult: [perToken, 'doc_length'] }] } } }],
    });
    expect(req.query).toEqual({
      formula: { sum: [term(0, fts5Idf(3, 10) * 2.2), term(1, 2 * fts5Idf(20_000, 10) * 2.2)] },
      defaults: { doc_length: 0 },
    });
    expect(req).toMatchObject({ filter, limit: 100, with_payload: ['memory_id'] });
    // Nothing to ask when the tenant holds none of the terms, or holds nothing at all.
    expect(keywordRequest({ ...baseInput(), statistics: { docs: 10, totalLength: 10, frequencies: new Map([[7, 0]]) } })).toBeNull();
    expect(keywordRequest({ ...baseInput(), statistics: { docs: 0, totalLength: 0, frequencies: new Map([[7, 1]]) } })).toBeNull();
  });

  it('reads the tenant’s memory count and total length from a facet of lengths', () => {
    expect(
      lengthTotals([
        { value: 12, count: 3 },
        { value: 0, count: 1 },
        { value: 40, count: 2 },
        { value: 'x', count: 5 },
      ]),
    ).toEqual({ docs: 6, totalLength: 12 * 3 + 40 * 2 });
  });
});

function baseInput() {
  return {
    terms: [{ id: 7, multiplicity: 1 }],
    filter: tenantFilter('t'),
    depth: 10,
    termLimit: 100,
    withPayload: [],
  };
}
