import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase, openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { deleteIndexRows, EmbeddedSearchIndex, writeIndexRows } from '../../adapters/embedded/search-index.js';
import { fuse, rrf, weightedFusion } from '../../server/services/search/fusion.js';
import { buildFtsQuery } from '../../adapters/embedded/search/fts-query.js';
import { queryTerms } from '../../server/text/query-text.js';
import { HashingEmbedder } from '../../adapters/embeddings/hashing.js';
import type { IndexedMemory } from '../../server/ports/search-index.js';
import { indexedMemory } from '../support/indexed-memory.js';

const e = new HashingEmbedder(128);
const info = { model: e.model, dimension: 128 };

function doc(id: string, content: string, extra: Partial<IndexedMemory> = {}): IndexedMemory {
  return indexedMemory(id, content, { vector: e.embedOne(content), ...extra });
}

const q = (text: string) => ({ text, vector: e.embedOne(text), mode: 'hybrid' as const, limit: 10, filters: { namespaces: null } });

describe('query text', () => {
  it('drops stop-words, dedupes, and quotes every term', () => {
    expect(queryTerms('What did Emma research about the Research?')).toEqual(['emma', 'research']);
    expect(queryTerms('what is it')).toEqual(['what', 'is', 'it']);
    expect(buildFtsQuery('NEAR(a "b") AND -c* zebra')).toBe('"near" OR "zebra"');
    expect(buildFtsQuery('!!!')).toBeNull();
  });
});

describe('fusion', () => {
  const a = {
    name: 'a',
    weight: 1,
    hits: [
      { key: 1, score: 10 },
      { key: 2, score: 5 },
    ],
  };
  const b = {
    name: 'b',
    weight: 1,
    hits: [
      { key: 2, score: 0.9 },
      { key: 3, score: 0.1 },
    ],
  };
  it('RRF sums weight / (k + rank)', () => {
    const f = rrf([a, b], 60);
    expect(f.get(2)).toBeCloseTo(1 / 62 + 1 / 61, 10);
    expect(f.get(3)).toBeCloseTo(1 / 62, 10);
  });
  it('weighted fusion normalises per channel', () => {
    const mm = weightedFusion([a, b], 'minmax');
    expect(mm.get(1)).toBeCloseTo(1, 10);
    expect(mm.get(2)).toBeCloseTo(1, 10);
    expect(mm.get(3)).toBeCloseTo(0, 10);
    const z = weightedFusion([a, b], 'zscore');
    expect(z.get(2)!).toBeGreaterThan(z.get(3)!);
    expect(fuse([a, { ...b, weight: 0 }], { kind: 'rrf', k: 1 }).has(3)).toBe(false);
  });
});

describe('EmbeddedSearchIndex inside a caller transaction', () => {
  it('commits index rows with the caller and rolls them back with it', async () => {
    const db = openInMemoryDatabase();
    const index = new EmbeddedSearchIndex(db, info);
    db.transaction(() => writeIndexRows(db, 't', doc('kept', 'harbour lighthouse keeper')))();
    expect(() =>
      db.transaction(() => {
        writeIndexRows(db, 't', doc('lost', 'harbour lighthouse lamp'));
        throw new Error('caller failed after writing');
      })(),
    ).toThrow(/caller failed/);
    expect((await index.search('t', q('harbour lighthouse'))).hits.map((h) => h.memoryId)).toEqual(['kept']);
    db.transaction(() => {
      deleteIndexRows(db, 't', 'kept');
    })();
    expect((await index.search('t', q('harbour lighthouse'))).hits).toEqual([]);
  });
});

describe('EmbeddedSearchIndex across processes sharing one file', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('sees writes and deletions made through another connection', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'search-sync-'));
    const reader = openEmbeddedDatabase(dir);
    const writer = openEmbeddedDatabase(dir);
    const readIndex = new EmbeddedSearchIndex(reader, info);
    const writeIndex = new EmbeddedSearchIndex(writer, info);
    await writeIndex.upsert('t', doc('a', 'glacier hiking boots'));
    expect((await readIndex.search('t', { ...q('glacier boots'), mode: 'vector-only' })).hits.map((h) => h.memoryId)).toEqual(['a']);
    await writeIndex.upsert('t', doc('b', 'glacier crampons'));
    await writeIndex.remove('t', 'a');
    const got = (await readIndex.search('t', { ...q('glacier boots'), mode: 'vector-only' })).hits.map((h) => h.memoryId);
    expect(got).toEqual(['b']);
    reader.close();
    writer.close();
  });
});

/** Deterministic clustered unit vectors: a seeded generator, 20 random centres, and normalisation. */
function clusteredSpace(dim: number, seed: number) {
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  const centres = Array.from({ length: 20 }, () => Float32Array.from({ length: dim }, rand));
  const unit = (v: Float32Array) => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  return { rand, centres, unit };
}

describe('approximate (IVF) dense search', () => {
  it('matches the full scan closely on clustered data and respects filters', async () => {
    const db = openInMemoryDatabase();
    const dim = 32;
    const index = new EmbeddedSearchIndex(db, { model: 'random', dimension: dim }, { annThreshold: 500, ivf: { probes: 8 } });
    const { rand, centres, unit } = clusteredSpace(dim, 42);
    const docs: IndexedMemory[] = [];
    for (let i = 0; i < 3000; i++) {
      const c = centres[i % 20]!;
      docs.push({ ...doc(`m${i}`, `doc ${i}`), namespace: i % 2 ? 'odd' : 'even', vector: unit(c.map((x) => x + rand() * 0.4)) });
    }
    await index.upsertMany('t', docs);
    await index.warm('t');
    expect(index.annReady('t')).toBe(true);
    let overlap = 0;
    const queries = 30;
    for (let k = 0; k < queries; k++) {
      const v = unit(centres[k % 20]!.map((x) => x + rand() * 0.5));
      const query = { text: '', vector: v, mode: 'vector-only' as const, limit: 10, filters: { namespaces: ['odd'] } };
      const approx = (await index.channelSearch('t', 'dense', query)).hits.map((h) => h.memoryId);
      const exact = (await index.channelSearch('t', 'dense', query, { exact: true })).hits.map((h) => h.memoryId);
      expect(approx.every((id) => Number(id.slice(1)) % 2 === 1)).toBe(true);
      overlap += approx.filter((id) => exact.includes(id)).length / exact.length;
    }
    expect(overlap / queries).toBeGreaterThan(0.9);
    // Writes after the build are found, removals are not returned.
    await index.upsert('t', { ...doc('fresh', 'x'), namespace: 'odd', vector: unit(centres[3]!) });
    await index.remove('t', 'm1');
    const after = (
      await index.search('t', { text: '', vector: unit(centres[3]!), mode: 'vector-only', limit: 5, filters: { namespaces: null } })
    ).hits;
    expect(after[0]!.memoryId).toBe('fresh');
    const all = (
      await index.search('t', { text: '', vector: unit(centres[1]!), mode: 'vector-only', limit: 100, filters: { namespaces: null } })
    ).hits;
    expect(all.map((h) => h.memoryId)).not.toContain('m1');
    await index.close();
  });
});

describe('binary first pass of the dense channel', () => {
  it("keeps the full scan's results when every row is rescored, comes close with fewer, scores exactly and respects filters", async () => {
    const dim = 256; // one dense group: estimated from the signs
    const { rand, centres, unit } = clusteredSpace(dim, 11);
    const docs: IndexedMemory[] = [];
    for (let i = 0; i < 3000; i++) {
      docs.push({
        ...doc(`m${i}`, `doc ${i}`),
        namespace: i % 2 ? 'odd' : 'even',
        vector: unit(centres[i % 20]!.map((x) => x + rand() * 0.6)),
      });
    }
    const queries = Array.from({ length: 30 }, (_, k) => unit(centres[k % 20]!.map((x) => x + rand() * 0.6)));
    const dense = async (index: EmbeddedSearchIndex, vector: Float32Array, exact = false) =>
      (
        await index.channelSearch(
          't',
          'dense',
          { text: '', vector, mode: 'vector-only', limit: 10, filters: { namespaces: ['odd'] } },
          { exact },
        )
      ).hits;
    for (const [candidates, minOverlap] of [
      [5000, 1],
      [400, 0.9],
    ] as const) {
      const db = openInMemoryDatabase();
      const index = new EmbeddedSearchIndex(
        db,
        { model: 'random', dimension: dim },
        { firstPassThreshold: 1000, firstPassCandidates: candidates },
      );
      await index.upsertMany('t', docs);
      let overlap = 0;
      for (const v of queries) {
        const approx = await dense(index, v);
        const exact = await dense(index, v, true);
        expect(approx.every((h) => Number(h.memoryId.slice(1)) % 2 === 1)).toBe(true);
        if (minOverlap === 1) expect(approx.map((h) => h.memoryId)).toEqual(exact.map((h) => h.memoryId));
        for (const h of approx) {
          const same = exact.find((e) => e.memoryId === h.memoryId);
          if (same) expect(h.score).toBeCloseTo(same.score, 5);
        }
        overlap += approx.filter((h) => exact.some((e) => e.memoryId === h.memoryId)).length / exact.length;
      }
      expect(overlap / queries.length).toBeGreaterThanOrEqual(minOverlap);
      await index.close();
      db.close();
    }
  });
});

describe('approximate (IVF) dense search during a reindex', () => {
  it('indexes only memories with a vector, counts only them against the threshold, and files a late vector in its own cell', async () => {
    const db = openInMemoryDatabase();
    const dim = 32;
    const index = new EmbeddedSearchIndex(db, { model: 'random', dimension: dim }, { annThreshold: 1000, ivf: { probes: 2 } });
    const { rand, centres, unit } = clusteredSpace(dim, 7);
    const vectorOf = (i: number) => unit(centres[i % 20]!.map((x) => x + rand() * 0.3));
    const vectors = Array.from({ length: 2000 }, (_, i) => vectorOf(i));
    // 1,200 with a vector, 800 still waiting for theirs (as while `reindex` runs).
    await index.upsertMany(
      't',
      vectors.map((v, i) => ({ ...doc(`m${i}`, `doc ${i}`), vector: i < 1200 ? v : null })),
    );
    await index.warm('t');
    expect(index.annReady('t')).toBe(true);
    // Their vectors arrive after the build: each must be found by its own vector.
    await index.upsertMany(
      't',
      vectors.slice(1200).map((v, k) => ({ ...doc(`m${1200 + k}`, `doc ${1200 + k}`), vector: v })),
    );
    let found = 0;
    for (let i = 1200; i < 2000; i += 8) {
      const hits = (
        await index.channelSearch('t', 'dense', {
          text: '',
          vector: vectors[i]!,
          mode: 'vector-only',
          limit: 1,
          filters: { namespaces: null },
        })
      ).hits;
      if (hits[0]?.memoryId === `m${i}`) found++;
    }
    expect(found).toBe(100);
    await index.close();

    // 900 vectors among 2,000 memories stay below a threshold of 1,000: the full scan serves them.
    const db2 = openInMemoryDatabase();
    const below = new EmbeddedSearchIndex(db2, { model: 'random', dimension: dim }, { annThreshold: 1000 });
    await below.upsertMany(
      't',
      vectors.map((v, i) => ({ ...doc(`m${i}`, `doc ${i}`), vector: i < 900 ? v : null })),
    );
    await below.warm('t');
    expect(below.annReady('t')).toBe(false);
    await below.close();
  });
});

describe('tenant caches', () => {
  it('holds at most maxCachedTenants caches, least recently used out first, and answers the same after eviction', async () => {
    const db = openInMemoryDatabase();
    const index = new EmbeddedSearchIndex(db, info, { maxCachedTenants: 3 });
    for (let t = 0; t < 5; t++) await index.upsert(`t${t}`, doc(`m${t}`, `lantern number ${t}`));
    const first = await index.search('t0', q('lantern'));
    for (let t = 0; t < 5; t++) {
      const r = await index.search(`t${t}`, q('lantern'));
      expect(r.hits.map((h) => h.memoryId)).toEqual([`m${t}`]);
      expect(index.cachedTenantCount).toBeLessThanOrEqual(3);
    }
    expect(await index.search('t0', q('lantern'))).toEqual(first);
    await index.close();
    db.close();
  });
});

describe('SIMD dense scan', () => {
  it('scores int8 rows within their rounding of the float dot product, across growth, moves and sparse queries; the JavaScript fallback is exact', async () => {
    const { Int8Matrix } = await import('../../adapters/embedded/search/int8-scan.js');
    const { RowMajorRows } = await import('../../adapters/embedded/search/vector-rows.js');
    expect(Int8Matrix.supports(1280)).toBe(true);
    expect(Int8Matrix.supports(20)).toBe(false);
    // 320 dimensions: two quantisation groups (256 + 64), the second with much smaller values.
    const dim = 320;
    const value = (r: number, j: number) => Math.fround((j < 256 ? 1 : 0.01) * (r < 10 ? Math.sin(r * dim + j) : Math.cos(r * dim + j)));
    const bytesOf = (r: number) => new Uint8Array(Float32Array.from({ length: dim }, (_, j) => value(r, j)).buffer);
    const rows = 1001; // not a multiple of the kernel's four rows nor of its 256-row tiles
    const int8 = new Int8Matrix(dim);
    const plain = new RowMajorRows(dim);
    for (const m of [int8, plain]) {
      m.reserve(10, 0);
      for (let r = 0; r < 10; r++) m.set(r, bytesOf(r));
      m.reserve(rows, 10); // grows the memory and moves the columns and scales
      for (let r = 10; r < rows; r++) m.set(r, bytesOf(r));
    }
    const exact = (r: number, q: Float32Array) => {
      let s = 0;
      for (let j = 0; j < dim; j++) s += value(r, j) * q[j]!;
      return s;
    };
    // Each stored value is within half a step (its group's largest magnitude / 127) of the float.
    const bound = (r: number, q: Float32Array) => {
      let b = 0;
      for (const [from, to] of [
        [0, 256],
        [256, dim],
      ] as const) {
        let max = 0;
        let l1 = 0;
        for (let j = from; j < to; j++) {
          max = Math.max(max, Math.abs(value(r, j)));
          l1 += Math.abs(q[j]!);
        }
        b += (max / 127 / 2) * l1;
      }
      return b * 1.01 + 1e-6;
    };
    const dense = Float32Array.from({ length: dim }, (_, j) => ((j % 7) - 3) / 10);
    // Only one block of the second group is non-zero: the kernel reads that block alone.
    const sparse = Float32Array.from({ length: dim }, (_, j) => (j >= 272 && j < 288 ? (j % 5) - 2 : 0));
    // The kernel reads up to three blocks of a group together: five blocks of the first group (three, then
    // two) and two of the second take its other paths.
    const mixed = Float32Array.from({ length: dim }, (_, j) => (j < 80 || (j >= 288 && j < 320) ? Math.cos(j) / 10 : 0));
    for (const q of [dense, sparse, mixed]) {
      const scores = Array.from(int8.scan(q, rows));
      const plainScores = Array.from(plain.scan(q, rows));
      for (const r of [0, 9, 10, 255, 256, 999, 1000]) {
        expect(Math.abs(scores[r]! - exact(r, q))).toBeLessThanOrEqual(bound(r, q));
        expect(scores[r]).toBeCloseTo(int8.dot(r, q), 4); // the kernel and the scalar path agree
        expect(plainScores[r]).toBeCloseTo(exact(r, q), 4);
        expect(plain.dot(r, q)).toBeCloseTo(exact(r, q), 4);
      }
    }
    const stored = Array.from(int8.row(1000));
    for (let j = 0; j < dim; j++) expect(Math.abs(stored[j]! - value(1000, j))).toBeLessThanOrEqual((j < 256 ? 1 : 0.01) / 254 + 1e-7);
    int8.move(1000, 3);
    plain.move(1000, 3);
    expect(Array.from(int8.row(3))).toEqual(stored);
    expect(Array.from(plain.row(3))).toEqual(Array.from({ length: dim }, (_, j) => value(1000, j)));
    expect(int8.scan(dense, rows)[3]).toBeCloseTo(int8.dot(1000, dense), 4);
    // Same search through the SIMD cache (dim 32) and the JavaScript one (dim 20 pads nothing).
    for (const d of [32, 20]) {
      const db = openInMemoryDatabase();
      const index = new EmbeddedSearchIndex(db, { model: 'm', dimension: d });
      const unit = (seed: number) => {
        // A frequency per seed: distinct rows (seed·13 + j phases repeat within int8 rounding, e.g. seeds 7 and 36).
        const v = Float32Array.from({ length: d }, (_, j) => Math.sin((seed + 1) * (j + 1)));
        const n = Math.hypot(...v);
        return v.map((x) => x / n);
      };
      for (let i = 0; i < 50; i++) await index.upsert('t', { ...doc(`m${i}`, `x ${i}`), vector: unit(i) });
      const hits = (
        await index.channelSearch('t', 'dense', { text: '', vector: unit(7), mode: 'vector-only', limit: 3, filters: { namespaces: null } })
      ).hits;
      expect(hits[0]!.memoryId).toBe('m7');
      expect(hits[0]!.score).toBeCloseTo(1, 2);
    }
  });
});

describe('episodic context', () => {
  it('lends a hit part of its score to the nearest earlier and later memories of its namespace that the filters allow, within the window', async () => {
    const db = openInMemoryDatabase();
    const index = new EmbeddedSearchIndex(db, info);
    const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 12, 0) + minutes * 60_000).toISOString();
    await index.upsertMany('t', [
      doc('far-before', 'breakfast pancakes', { createdAt: at(-60) }), // beyond the 30-minute window
      doc('before', 'lunch plans', { createdAt: at(-10) }),
      doc('superseded-before', 'dinner plans', { createdAt: at(-5), status: 'superseded' }), // filtered out: skipped
      doc('hit', 'the zebra escaped', { createdAt: at(0) }),
      doc('other-namespace', 'coffee break', { createdAt: at(1), namespace: 'notes' }), // another episode
      doc('after', 'weather report', { createdAt: at(2) }),
      doc('after-after', 'evening news', { createdAt: at(3) }),
    ]);
    const keywordOnly = {
      fusion: {
        method: { kind: 'weighted' as const, normalization: 'minmax' as const },
        weights: { hybrid: { keyword: 1, dense: 0 }, 'hybrid+graph': { keyword: 1, dense: 0, graph: 0 } },
      },
    };
    const search = (weight: number) =>
      index.search(
        't',
        { text: 'zebra', vector: null, mode: 'hybrid', limit: 10, filters: { namespaces: null } },
        {
          ...keywordOnly,
          context: { weight: { 'vector-only': weight, hybrid: weight, 'hybrid+graph': weight }, windowMs: 30 * 60_000, candidates: 50 },
        },
      );
    expect((await search(0)).hits.map((h) => h.memoryId)).toEqual(['hit']);
    const withContext = (await search(0.3)).hits;
    expect(withContext.map((h) => h.memoryId).sort()).toEqual(['after', 'before', 'hit']);
    const score = (id: string) => withContext.find((h) => h.memoryId === id)!.score;
    expect(score('before')).toBeCloseTo(0.3 * score('hit'), 6);
    expect(score('after')).toBeCloseTo(0.3 * score('hit'), 6);
    // Asked for, the superseded memory is the nearest earlier one instead.
    const withSuperseded = await index.search(
      't',
      { text: 'zebra', vector: null, mode: 'hybrid', limit: 10, filters: { namespaces: null, includeSuperseded: true } },
      {
        ...keywordOnly,
        context: { weight: { 'vector-only': 0.3, hybrid: 0.3, 'hybrid+graph': 0.3 }, windowMs: 30 * 60_000, candidates: 50 },
      },
    );
    expect(withSuperseded.hits.map((h) => h.memoryId).sort()).toEqual(['after', 'hit', 'superseded-before']);
    await index.close();
    db.close();
  });
});

describe('reads answered from the tenant cache', () => {
  it('still fills the keyword channel when the filter drops more matches than it reads ahead', async () => {
    const db = openInMemoryDatabase();
    const index = new EmbeddedSearchIndex(db, info);
    // 300 superseded memories that match "kestrel" better (shorter) than the 12 active ones.
    const docs = [
      ...Array.from({ length: 300 }, (_, i) => doc(`old${i}`, `kestrel kestrel ${i}`, { status: 'superseded' })),
      ...Array.from({ length: 12 }, (_, i) => doc(`new${i}`, `a kestrel was seen over the long meadow near the river bend ${i}`)),
    ];
    await index.upsertMany('t', docs);
    const active = await index.channelSearch('t', 'keyword', {
      text: 'kestrel',
      vector: null,
      mode: 'hybrid',
      limit: 20,
      filters: { namespaces: null },
    });
    expect(active.hits.map((h) => h.memoryId).sort()).toEqual(
      docs
        .slice(300)
        .map((d) => d.memoryId)
        .sort(),
    );
    const withSuperseded = await index.channelSearch('t', 'keyword', {
      text: 'kestrel',
      vector: null,
      mode: 'hybrid',
      limit: 20,
      filters: { namespaces: null, includeSuperseded: true },
    });
    expect(withSuperseded.hits).toHaveLength(20);
    expect(withSuperseded.hits.every((h) => h.memoryId.startsWith('old'))).toBe(true);
    await index.close();
    db.close();
  });

  it('finds a memory without a vector by keyword only, and follows a memory moved to another namespace', async () => {
    const db = openInMemoryDatabase();
    const index = new EmbeddedSearchIndex(db, info);
    const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 12, 0) + minutes * 60_000).toISOString();
    await index.upsertMany('t', [
      doc('plain', 'the osprey nest', { vector: null, createdAt: at(0) }),
      doc('next', 'weather report', { createdAt: at(1) }),
    ]);
    const keywordOnly = {
      fusion: {
        method: { kind: 'weighted' as const, normalization: 'minmax' as const },
        weights: { hybrid: { keyword: 1, dense: 0 }, 'hybrid+graph': { keyword: 1, dense: 0, graph: 0 } },
      },
    };
    const search = () =>
      index.search(
        't',
        { text: 'osprey', vector: e.embedOne('osprey'), mode: 'hybrid', limit: 10, filters: { namespaces: null } },
        keywordOnly,
      );
    expect((await search()).hits.map((h) => h.memoryId)).toEqual(['plain', 'next']); // 'next' through episodic context
    const dense = await index.channelSearch('t', 'dense', {
      text: '',
      vector: e.embedOne('the osprey nest'),
      mode: 'vector-only',
      limit: 10,
      filters: { namespaces: null },
    });
    expect(dense.hits.map((h) => h.memoryId)).toEqual(['next']);
    // Moved to another namespace: no longer the hit's neighbour.
    await index.upsert('t', doc('next', 'weather report', { createdAt: at(1), namespace: 'elsewhere' }));
    const after = await search();
    expect(after.hits.map((h) => h.memoryId)).toEqual(['plain']);
    await index.close();
    db.close();
  });

  it('compares min_quality with the quality as written (0.7 meets a threshold of 0.7)', async () => {
    const db = openInMemoryDatabase();
    const index = new EmbeddedSearchIndex(db, info);
    await index.upsertMany('t', [
      doc('better-match', 'heron heron heron', { quality: 0.69 }),
      doc('at-threshold', 'a heron on the river bank', { quality: 0.7 }),
    ]);
    const hits = await index.channelSearch('t', 'keyword', {
      text: 'heron',
      vector: null,
      mode: 'hybrid',
      limit: 10,
      filters: { namespaces: null, minQuality: 0.7 },
    });
    expect(hits.hits.map((h) => h.memoryId)).toEqual(['at-threshold', 'better-match']);
    await index.close();
    db.close();
  });

  it('reads an entity again with the filter in SQL when the filter drops mentions of a full page', async () => {
    const db = openInMemoryDatabase();
    const index = new EmbeddedSearchIndex(db, info);
    const entity = { key: 'bernadette', name: 'Bernadette', type: 'person' as const };
    // The newest mentions are flagged; the only visible one is the oldest.
    await index.upsertMany('t', [
      doc('visible', 'Bernadette planted tulips', { entities: [entity] }),
      ...Array.from({ length: 10 }, (_, i) => doc(`flagged${i}`, `Bernadette note ${i}`, { entities: [entity], injectionFlagged: true })),
    ]);
    const graph = { hopWeight: 0, neighborsPerSeed: 0, maxDocFrequency: 5000, maxExpandFrequency: 1000, maxMentionsPerEntity: 4 };
    const hits = await index.channelSearch(
      't',
      'graph',
      { text: 'Bernadette', vector: null, mode: 'hybrid+graph', limit: 10, filters: { namespaces: null } },
      { graph },
    );
    expect(hits.hits.map((h) => h.memoryId)).toEqual(['visible']);
    await index.close();
    db.close();
  });
});

describe('final ranking', () => {
  it('orders a short page as the full sort of every candidate does: quality threshold, score, then memory id, ties included', async () => {
    const db = openInMemoryDatabase();
    const index = new EmbeddedSearchIndex(db, info);
    // Many memories with the same text score the same in every channel: only the memory id orders them.
    const docs: IndexedMemory[] = [];
    for (let i = 0; i < 120; i++) {
      const text = i % 3 === 0 ? 'harbour lighthouse keeper' : i % 3 === 1 ? 'harbour ferry timetable' : `lighthouse lamp ${i}`;
      docs.push(doc(`m-${String((i * 37) % 120).padStart(3, '0')}`, text, { quality: (i % 4) / 4 }));
    }
    await index.upsertMany('t', docs);
    for (const query of ['harbour lighthouse', 'ferry', 'lamp 7']) {
      for (const minQuality of [undefined, 0.5]) {
        const base = q(query);
        const filters = { ...base.filters, ...(minQuality !== undefined ? { minQuality } : {}) };
        // 100 results are ranked by sorting every candidate; 10 (at offsets 0 and 20) by the short page.
        const all = await index.search('t', { ...base, limit: 100, filters });
        for (const offset of [0, 20]) {
          const page = await index.search('t', { ...base, limit: 10, offset, filters });
          expect(page.total).toBe(all.total);
          expect(page.hits).toEqual(all.hits.slice(offset, offset + 10));
        }
      }
    }
  });
});
