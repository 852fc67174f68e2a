import { describe, expect, it } from 'vitest';
import type { KnowledgeCollections } from '../../adapters/mongo/knowledge-collections.js';
import { createMongoKnowledgeObjectStore } from '../../adapters/mongo/knowledge-object-store.js';
import type { MemoryCollections } from '../../adapters/mongo/memory-collections.js';
import type { EnrichmentLogRecord, LogPageQuery } from '../../server/ports/knowledge.js';
import { FakeDb } from '../support/fake-mongo.js';

/**
 * The MongoDB adapter's log pages on the in-memory stand-in (no MongoDB server runs here; the contract
 * suite checks the real server's semantics when MONGODB_URL is set): the keyset after an entry, and the
 * request it sends, which must stay one range of the index (tenantId, objectId, createdAt, seq, _id).
 */

const T = 'tenant-a';
const O = 'object-1';

/** Seven entries of three batches; the first batch is stamped alike and its ids sort against its write order. */
function seeded() {
  const fake = new FakeDb();
  const log = fake.collection('knowledge_enrichment_log');
  const batches: Array<[string, string, string[]]> = [
    ['2031-03-01T08:01:00.000Z', 'run-1', ['z1', 'y1', 'x1', 'w1']],
    ['2031-03-01T08:02:00.000Z', 'run-2', ['m2']],
    ['2031-03-01T08:03:00.000Z', 'run-3', ['b3', 'a3']],
  ];
  const order: string[] = [];
  for (const [createdAt, runId, ids] of batches) {
    ids.forEach((id, seq) => {
      order.push(id);
      log.docs.set(id, {
        _id: id,
        tenantId: T,
        objectId: O,
        runId,
        engine: 'rule',
        field: 'domain',
        strategy: 's',
        candidateValue: null,
        confidence: null,
        outcome: 'no_candidate',
        sourceRefs: [],
        previousValue: null,
        createdAt,
        seq,
      });
    });
  }
  // Another object's and another tenant's entries, stamped like the first batch.
  log.docs.set('o2', { ...log.docs.get('z1')!, _id: 'o2', objectId: 'object-2' });
  log.docs.set('t2', { ...log.docs.get('z1')!, _id: 't2', tenantId: 'tenant-b' });
  const c = { objects: fake.collection('knowledge_objects'), counts: fake.collection('knowledge_object_counts'), log };
  const store = createMongoKnowledgeObjectStore(c as unknown as KnowledgeCollections, fake as unknown as MemoryCollections);
  return { fake, store, order };
}

const ids = (page: EnrichmentLogRecord[] | null) => page?.map((e) => e.id) ?? null;
const query = (after: string | null, limit: number, runId: string | null = null): LogPageQuery => ({ after, runId, limit });

describe('mongo knowledge log pages', () => {
  it('pages of any size concatenate to the whole log in (createdAt, seq, _id) order', async () => {
    const { store, order } = seeded();
    for (const limit of [1, 2, 3, 7]) {
      const seen: string[] = [];
      for (let guard = 0; guard < 10; guard++) {
        const page = ids(await store.log(T, O, query(seen.at(-1) ?? null, limit)))!;
        seen.push(...page);
        if (page.length < limit) break;
      }
      expect(seen, `limit ${limit}`).toEqual(order);
    }
  });

  it.each([
    ['the first page of a run', query(null, 10, 'run-3'), ['b3', 'a3']],
    ['after an entry, only that run', query('y1', 10, 'run-1'), ['x1', 'w1']],
    ['after the last entry', query('a3', 10), []],
    ['an unknown entry', query('nope', 10), null],
    ["another object's entry", query('o2', 10), null],
    ["another tenant's entry", query('t2', 10), null],
  ])('%s', async (_name, q, expected) => {
    expect(ids(await seeded().store.log(T, O, q))).toEqual(expected);
  });

  it('sends one find on the index prefix with the keyset as an $or beside it, sorted like the index', async () => {
    const { fake, store } = seeded();
    const from = fake.calls.length;
    await store.log(T, O, query('x1', 2, 'run-1'));
    const find = fake.callsTo('knowledge_enrichment_log', from).find((call) => call.method === 'find')!;
    expect(find.args).toEqual([
      {
        tenantId: T,
        objectId: O,
        runId: 'run-1',
        $or: [
          { createdAt: { $gt: '2031-03-01T08:01:00.000Z' } },
          { createdAt: '2031-03-01T08:01:00.000Z', seq: { $gt: 2 } },
          { createdAt: '2031-03-01T08:01:00.000Z', seq: 2, _id: { $gt: 'x1' } },
        ],
      },
      {},
      { sort: { createdAt: 1, seq: 1, _id: 1 } },
      { limit: 2 },
    ]);
  });
});
