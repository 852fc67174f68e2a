import { readFileSync } from 'node:fs';
import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { runMigrations } from '../../adapters/embedded/database.js';
import { searchIndexMigration } from '../../adapters/embedded/migrations/0030_search_index.js';
import { searchTermsMigration } from '../../adapters/embedded/migrations/0031_search_terms.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { DEFAULT_KEYWORD } from '../../server/services/search/tuning.js';
import { tokenize } from '../../server/text/query-text.js';
import {
  DEFAULT_BM25,
  documentSparseVector,
  entitySparseVector,
  fnv1a32,
  querySparseVector,
  termIndex,
  weightedEntityVector,
} from '../../adapters/qdrant/sparse.js';
import type { IndexedMemory } from '../../server/ports/search-index.js';
import { porterStem } from '../../server/text/porter-stemmer.js';

describe('porterStem', () => {
  it('stems the classic examples like FTS5', () => {
    const cases: [string, string][] = [
      ['caresses', 'caress'],
      ['ponies', 'poni'],
      ['ties', 'ti'],
      ['cats', 'cat'],
      ['feed', 'feed'],
      ['agreed', 'agre'],
      ['plastered', 'plaster'],
      ['motoring', 'motor'],
      ['sing', 'sing'],
      ['conflated', 'conflat'],
      ['hopping', 'hop'],
      ['falling', 'fall'],
      ['filing', 'file'],
      ['happy', 'happi'],
      ['relational', 'relat'],
      ['generalization', 'gener'],
      ['running', 'run'],
      ['runs', 'run'],
      ['telescopes', 'telescop'],
      ['is', 'is'],
      ['ox', 'ox'],
    ];
    for (const [word, stem] of cases) expect(porterStem(word), word).toBe(stem);
  });

  it('leaves tokens under 3 or over 64 UTF-8 bytes alone and handles non-ASCII', () => {
    expect(porterStem('as')).toBe('as');
    expect(porterStem('x'.repeat(65) + 'ing')).toBe('x'.repeat(65) + 'ing');
    expect(porterStem('東京')).toBe('東京');
    expect(porterStem('зелёный')).toBe('зелёный');
  });

  it('agrees with libsql FTS5 porter on every token of a large English text', () => {
    const text = ['lib.es5.d.ts', 'lib.dom.d.ts'].map((f) => readFileSync(`node_modules/typescript/lib/${f}`, 'utf8')).join('\n');
    const words = [...new Set(tokenize(text))].filter((w) => /^[a-z]+$/.test(w));
    expect(words.length).toBeGreaterThan(5000);
    const db = new Database(':memory:');
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
    const insert = db.prepare('INSERT INTO t (rowid, x) VALUES (?, ?)');
    db.transaction(() => words.forEach((w, i) => insert.run([i + 1, w])))();
    const fts = new Map<number, string>();
    for (const r of db.prepare('SELECT term, doc FROM v').all() as { term: string; doc: number }[]) fts.set(r.doc, r.term);
    db.close();
    const mismatches = words
      .filter((w, i) => porterStem(w) !== fts.get(i + 1))
      .map((w) => `${w}: ${porterStem(w)} vs ${fts.get(words.indexOf(w) + 1)}`);
    expect(mismatches).toEqual([]);
  });
});

describe('term hashing', () => {
  it('is 32-bit FNV-1a of the UTF-8 bytes', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    expect(fnv1a32('東京')).toBe(fnv1a32('東京'));
    expect(fnv1a32('東京')).toBeLessThanOrEqual(0xffffffff);
  });
});

describe('documentSparseVector', () => {
  const weights = DEFAULT_KEYWORD;

  it('is deterministic, sorted, without duplicate indices', () => {
    const doc = {
      title: 'Pottery class',
      content: 'Glazed bowls in woodworking class; the kiln fired the bowls.',
      tags: ['hobby', 'woodworking'],
    };
    const a = documentSparseVector(doc, weights)!;
    const b = documentSparseVector({ ...doc, tags: [...doc.tags] }, weights)!;
    expect(a).toEqual(b);
    expect(a.indices.length).toBe(new Set(a.indices).size);
    expect([...a.indices]).toEqual([...a.indices].sort((x, y) => x - y));
    expect(a.values.every((v) => v > 0)).toBe(true);
  });

  it('computes BM25 saturation with column weights and length normalisation', () => {
    // title "kiln" (1 token), content "kiln kiln bowl" (3), tags [] → |D| = 4 (FTS5 rows carry no tenant token).
    const v = documentSparseVector(
      { title: 'kiln', content: 'kiln kiln bowl', tags: [] },
      { titleWeight: 2, contentWeight: 1, tagsWeight: 1.5 },
    )!;
    const { k1, b, avgDocLength } = DEFAULT_BM25;
    const norm = k1 * (1 - b + (b * 4) / avgDocLength);
    const expected = (f: number) => (f * (k1 + 1)) / (f + norm);
    const at = (stem: string) => v.values[v.indices.indexOf(termIndex(stem))];
    expect(at('kiln')).toBeCloseTo(expected(2 * 1 + 1 * 2), 12);
    expect(at('bowl')).toBeCloseTo(expected(1), 12);
    expect(v.indices).toHaveLength(2);
  });

  it('is null for a memory without any token', () => {
    expect(documentSparseVector({ title: '', content: ' — ', tags: [] }, weights)).toBeNull();
  });
});

describe('querySparseVector', () => {
  it('drops stop-words, stems, and counts two terms with one stem twice', () => {
    const q = querySparseVector('What are the runs and running of the telescopes?')!;
    const at = (stem: string) => q.values[q.indices.indexOf(termIndex(stem))];
    expect(at('run')).toBe(2);
    expect(at('telescop')).toBe(1);
    expect(q.indices).not.toContain(termIndex('the'));
    expect(q.indices).toHaveLength(2);
  });

  it('falls back to the tokens of an all-stop-word query and is null without tokens', () => {
    expect(querySparseVector('what is it')!.indices).toHaveLength(3);
    expect(querySparseVector('  "" () * ')).toBeNull();
  });
});

describe('entity vectors', () => {
  it('marks each entity key once; weighted queries keep positive weights only', () => {
    expect(entitySparseVector(['sarah', 'woodworking class', 'sarah'])!.values).toEqual([1, 1]);
    expect(entitySparseVector([])).toBeNull();
    const w = weightedEntityVector(
      new Map([
        ['sarah', 2.5],
        ['x', 0],
        ['woodworking', 0.25],
      ]),
    )!;
    expect(w.indices).toHaveLength(2);
    expect(w.values.reduce((a, b) => a + b, 0)).toBeCloseTo(2.75, 12);
  });
});

describe('BM25 parity with the embedded keyword channel', () => {
  it('reproduces FTS5 bm25() scores exactly given FTS5 IDF and average length', async () => {
    const db = new Database(':memory:');
    runMigrations(db, [searchIndexMigration, searchTermsMigration]);
    const index = new EmbeddedSearchIndex(db, { model: 'm', dimension: 4 });
    const base: Omit<IndexedMemory, 'memoryId' | 'title' | 'content' | 'tags'> = {
      namespace: 'default',
      agentId: null,
      status: 'active',
      injectionFlagged: false,
      quality: 1,
      createdAt: '2025-01-01T00:00:00.000Z',
      vector: null,
      entities: [],
    };
    const docs: IndexedMemory[] = [
      {
        ...base,
        memoryId: 'a',
        title: 'Pottery class',
        content: 'Signed up for a woodworking class at the studio; the kiln is hot.',
        tags: ['hobby'],
      },
      {
        ...base,
        memoryId: 'b',
        title: '',
        content: 'Glazed three ceramic bowls and fired them in the kiln.',
        tags: ['woodworking', 'kiln'],
      },
      {
        ...base,
        memoryId: 'c',
        title: 'Telescopes',
        content: 'Watched Jupiter through the telescope; telescopes everywhere, running late.',
        tags: [],
      },
      {
        ...base,
        memoryId: 'd',
        title: 'Budget',
        content: 'Opened a savings account and runs a monthly budget spreadsheet for the studio.',
        tags: ['finance'],
      },
      {
        ...base,
        memoryId: 'e',
        title: 'Café notes',
        content: 'A naïve résumé written at the café near the running track.',
        tags: ['cafe'],
      },
      { ...base, memoryId: 'f', title: 'Long one', content: 'Bread '.repeat(40) + 'and a kiln.', tags: [] },
    ];
    for (const d of docs) await index.upsert('t', d);
    // Another tenant's rows must not move tenant t's statistics: the embedded index keeps one FTS5
    // table per tenant, so N, n and avgdl below are t's alone.
    await index.upsert('u', { ...base, memoryId: 'z', title: 'Kiln', content: 'kiln kiln woodworking', tags: [] });

    const all = [...docs];
    const lengths = all.map((d) => tokenize(d.title).length + tokenize(d.content).length + tokenize(d.tags.join(' ')).length);
    const avgdl = lengths.reduce((a, b) => a + b, 0) / all.length;
    const vectors = all.map((d) => documentSparseVector(d, DEFAULT_KEYWORD, { ...DEFAULT_BM25, avgDocLength: avgdl })!);
    const idf = (term: number) => {
      const n = vectors.filter((v) => v.indices.includes(term)).length;
      const x = Math.log((all.length - n + 0.5) / (n + 0.5));
      return x <= 0 ? 1e-6 : x;
    };
    for (const text of ['woodworking kiln', 'telescopes running', 'the studio budget', 'cafe resume', 'bread', 'runs']) {
      const q = querySparseVector(text)!;
      const expected = new Map<string, number>();
      docs.forEach((d, i) => {
        let s = 0;
        q.indices.forEach((t, j) => {
          const k = vectors[i]!.indices.indexOf(t);
          if (k >= 0) s += q.values[j]! * idf(t) * vectors[i]!.values[k]!;
        });
        if (s > 0) expected.set(d.memoryId, s);
      });
      const got = await index.channelSearch('t', 'keyword', {
        text,
        vector: null,
        mode: 'hybrid',
        limit: 50,
        filters: { namespaces: null },
      });
      expect(new Map(got.hits.map((h) => [h.memoryId, h.score])).size, text).toBe(expected.size);
      for (const h of got.hits) expect(h.score, `${text} → ${h.memoryId}`).toBeCloseTo(expected.get(h.memoryId)!, 9);
    }
    db.close();
  });
});
