import { describe, expect, it } from 'vitest';
import { openInMemoryDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { EmbeddedSearchIndex, type SearchTuning } from '../../adapters/embedded/search-index.js';
import { decodeTermCounts, encodeTermCounts } from '../../adapters/embedded/search/stored-term-counts.js';
import { countTerms, packCounts, weightedFrequency } from '../../server/text/term-counts.js';
import type { IndexedMemory, SearchFilters } from '../../server/ports/search-index.js';
import { indexedMemory as doc } from '../support/indexed-memory.js';

const info = { model: 'none', dimension: 16 };

/** A corpus with titles and tags (weighted columns), repeats, stems, diacritics, digits and an empty memory. */
function corpus(): IndexedMemory[] {
  const words = [
    'kiln',
    'glaze',
    'running',
    'runs',
    'studio',
    'telescope',
    'budget',
    'café',
    'résumé',
    'bread',
    'ferry',
    'harbour',
    '2024',
    'x9',
  ];
  const docs: IndexedMemory[] = [];
  for (let i = 0; i < 120; i++) {
    const pick = (k: number) => words[(i * 7 + k * 3) % words.length]!;
    const content = Array.from({ length: 3 + (i % 11) }, (_, k) => pick(k)).join(i % 3 === 0 ? ', ' : ' ');
    docs.push(
      doc(`m${i}`, content, {
        title: i % 4 === 0 ? `${pick(5)} notes` : '',
        tags: i % 5 === 0 ? [pick(6), 'misc'] : [],
        namespace: i % 6 === 0 ? 'notes' : 'default',
        status: i % 17 === 0 ? 'superseded' : 'active',
      }),
    );
  }
  docs.push(doc('empty', ''));
  docs.push(doc('long', 'bread '.repeat(300) + 'and a kiln'));
  return docs;
}

const QUERIES = [
  'kiln glaze',
  'running',
  'runs running run',
  'cafe resume',
  'the studio budget',
  '2024 harbour ferry',
  'bread',
  'what is it',
  'zebra',
];

async function scores(index: EmbeddedSearchIndex, text: string, filters: SearchFilters, tuning: SearchTuning = {}) {
  const got = await index.channelSearch('t', 'keyword', { text, vector: null, mode: 'hybrid', limit: 200, filters }, tuning);
  return new Map(got.hits.map((h) => [h.memoryId, h.score]));
}

async function expectParity(index: EmbeddedSearchIndex, filters: SearchFilters = { namespaces: null }) {
  for (const text of QUERIES) {
    const memory = await scores(index, text, filters);
    const fts5 = await scores(index, text, filters, { fts5: true });
    expect([...memory.keys()].sort(), text).toEqual([...fts5.keys()].sort());
    for (const [id, s] of fts5) expect(memory.get(id)!, `${text} → ${id}`).toBeCloseTo(s, 9);
  }
}

function indexed(db: EmbeddedDatabase): EmbeddedSearchIndex {
  return new EmbeddedSearchIndex(db, info);
}

describe('term counts', () => {
  it('counts FTS5 tokens per column, stemmed, with the length over all columns', () => {
    const t = countTerms({ title: 'Running notes', content: 'She runs; the runner ran. Café!', tags: ['running', 'misc'] });
    expect(t.length).toBe(2 + 6 + 2);
    expect(t.counts.get('run')).toBe(packCounts(1, 1, 1));
    expect(t.counts.get('runner')).toBe(packCounts(0, 1, 0));
    expect(t.counts.get('cafe')).toBe(packCounts(0, 1, 0));
    expect(weightedFrequency(t.counts.get('run')!, 2, 1, 1.5)).toBe(4.5);
    expect(decodeTermCounts(encodeTermCounts(t))).toEqual(t);
  });

  it('caps each column at its field and treats a malformed stored value as missing', () => {
    const t = countTerms({ title: 'kiln '.repeat(1100), content: 'kiln '.repeat(2100), tags: [] });
    expect(t.length).toBe(3200);
    expect(weightedFrequency(t.counts.get('kiln')!, 1, 0, 0)).toBe(1023);
    expect(weightedFrequency(t.counts.get('kiln')!, 0, 1, 0)).toBe(2047);
    for (const bad of ['', '{', '{}', '[]', '[1,"a"]', '[-1]', '[1,2,3]', '[1,"a",-4]', '[1.5]'])
      expect(decodeTermCounts(bad), bad).toBeNull();
  });
});

describe('in-memory keyword index', () => {
  it('scores exactly as the FTS5 table does, alone and beside another tenant', async () => {
    const db = openInMemoryDatabase();
    const index = indexed(db);
    await index.upsertMany('t', corpus());
    await index.upsertMany('u', [doc('z', 'kiln kiln glaze bread bread bread'), doc('y', 'zebra running')]);
    await expectParity(index);
    // Filters are applied to every match, not to a page of them.
    await expectParity(index, { namespaces: ['notes'] });
    await expectParity(index, { namespaces: null, includeSuperseded: true });
    expect((await scores(index, 'zebra', { namespaces: null })).size).toBe(0);
    db.close();
  });

  it('stays exact through updates and deletes, including those of another process', async () => {
    const db = openInMemoryDatabase();
    const index = indexed(db);
    const other = indexed(db); // another process's cache on the same database
    const docs = corpus();
    await index.upsertMany('t', docs);
    await expectParity(other);
    const changed = [
      doc('m3', 'ferry ferry harbour', { title: 'Ferry' }),
      doc('m8', 'kiln', { status: 'superseded' }),
      doc('new', 'kiln telescope'),
    ];
    for (const d of changed) await other.upsert('t', d);
    await other.remove('t', 'm4');
    // FTS5 cannot take a contentless row's tokens off its totals when the row is deleted or replaced, so
    // the tenant's own table now ranks with stale statistics; the postings score the documents as they
    // are, as a table built from them afresh does.
    const current = [...docs.filter((d) => !['m3', 'm4', 'm8'].includes(d.memoryId)), ...changed];
    const fresh = openInMemoryDatabase();
    const rebuilt = indexed(fresh);
    await rebuilt.upsertMany('t', current);
    for (const filters of [{ namespaces: null }, { namespaces: null, includeSuperseded: true }] as SearchFilters[]) {
      for (const text of QUERIES) {
        const memory = await scores(index, text, filters);
        const expected = await scores(rebuilt, text, filters, { fts5: true });
        expect([...memory.keys()].sort(), text).toEqual([...expected.keys()].sort());
        for (const [id, s] of expected) expect(memory.get(id)!, `${text} → ${id}`).toBeCloseTo(s, 9);
      }
    }
    expect((await scores(index, 'telescope', { namespaces: null })).has('new')).toBe(true);
    expect([...(await scores(index, 'kiln glaze running', { namespaces: null })).keys()]).not.toContain('m4');
    db.close();
    fresh.close();
  });

  it('answers from the postings when every document has term counts, from FTS5 while one has none', async () => {
    const db = openInMemoryDatabase();
    await indexed(db).upsertMany('t', corpus());
    // Stored counts that say m1 holds "zebra" (its text does not): only the postings can find it there.
    db.prepare("UPDATE search_docs SET terms = ? WHERE memory_id = 'm1'").run([
      encodeTermCounts({ length: 1, counts: new Map([['zebra', 1024]]) }),
    ]);
    expect([...(await scores(indexed(db), 'zebra', { namespaces: null })).keys()]).toEqual(['m1']);
    // A document indexed before term counts were stored: the tenant's keyword channel is FTS5's.
    db.prepare("UPDATE search_docs SET terms = NULL WHERE memory_id = 'm2'").run();
    const legacy = indexed(db);
    expect((await scores(legacy, 'zebra', { namespaces: null })).size).toBe(0);
    expect((await scores(legacy, 'kiln', { namespaces: null })).size).toBeGreaterThan(0);
    // Writing it again stores its counts, and the postings answer again.
    await legacy.upsert('t', doc('m2', 'glaze'));
    expect([...(await scores(legacy, 'zebra', { namespaces: null })).keys()]).toEqual(['m1']);
    db.close();
  });
});
