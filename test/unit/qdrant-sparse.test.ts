import { readFileSync } from 'node:fs';
import Database from 'libsql';
import { describe, expect, it } from 'vitest';
import { DEFAULT_KEYWORD } from '../../server/services/search/tuning.js';
import { tokenize } from '../../server/text/query-text.js';
import { documentTerms, entitySparseVector, fnv1a32, queryTermIds, termIndex, weightedEntityVector } from '../../adapters/qdrant/sparse.js';
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

describe('documentTerms', () => {
  const weights = DEFAULT_KEYWORD;

  it('is deterministic, sorted, without duplicate indices; its term ids are the indices', () => {
    const doc = {
      title: 'Pottery class',
      content: 'Glazed bowls in woodworking class; the kiln fired the bowls.',
      tags: ['hobby', 'woodworking'],
    };
    const a = documentTerms(doc, weights);
    const b = documentTerms({ ...doc, tags: [...doc.tags] }, weights);
    expect(a).toEqual(b);
    const v = a.vector!;
    expect(v.indices.length).toBe(new Set(v.indices).size);
    expect([...v.indices]).toEqual([...v.indices].sort((x, y) => x - y));
    expect(v.values.every((x) => x > 0)).toBe(true);
    expect(a.termIds).toEqual(v.indices);
  });

  it('stores column-weighted term frequencies (no BM25 weight, no IDF) and the token count', () => {
    // title "kiln" (1 token), content "kiln kiln bowl" (3), tags [] → |D| = 4.
    const t = documentTerms({ title: 'kiln', content: 'kiln kiln bowl', tags: [] }, { titleWeight: 2, contentWeight: 1, tagsWeight: 1.5 });
    const at = (stem: string) => t.vector!.values[t.vector!.indices.indexOf(termIndex(stem))];
    expect(at('kiln')).toBe(2 * 1 + 1 * 2);
    expect(at('bowl')).toBe(1);
    expect(t.vector!.indices).toHaveLength(2);
    expect(t.length).toBe(4);
    // Stop-words count towards the length, as FTS5 counts every token.
    expect(documentTerms({ title: '', content: 'the kiln', tags: ['a tag'] }, weights).length).toBe(4);
  });

  it('has no vector for a memory without any token, and length 0', () => {
    expect(documentTerms({ title: '', content: ' — ', tags: [] }, weights)).toEqual({ vector: null, termIds: [], length: 0 });
  });
});

describe('queryTermIds', () => {
  it('drops stop-words, stems, and counts two terms with one stem twice', () => {
    const q = queryTermIds('What are the runs and running of the telescopes?');
    expect(q).toEqual([
      { id: termIndex('run'), multiplicity: 2 },
      { id: termIndex('telescop'), multiplicity: 1 },
    ]);
  });

  it('falls back to the tokens of an all-stop-word query and is empty without tokens', () => {
    expect(queryTermIds('what is it')).toHaveLength(3);
    expect(queryTermIds('  "" () * ')).toEqual([]);
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
