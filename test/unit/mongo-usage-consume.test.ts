import { MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { nextConsumeStep, type ConsumeOutcome, type ConsumeStep } from '../../adapters/mongo/consume-retry.js';
import type { MemoryCollections } from '../../adapters/mongo/memory-collections.js';
import { createMongoUsageStore } from '../../adapters/mongo/usage-store.js';
import { duplicateKey, FakeDb } from '../support/fake-mongo.js';

describe('consume retry decision', () => {
  const cases: [string, boolean, ConsumeOutcome, ConsumeStep][] = [
    ['counted by the upsert', true, { kind: 'counted', value: 1 }, { kind: 'answer', value: 1 }],
    ['counted by the plain update', false, { kind: 'counted', value: 7 }, { kind: 'answer', value: 7 }],
    // The duplicate key of an upsert: at the limit, or a concurrent first request inserted the document.
    ['duplicate key on the upsert', true, { kind: 'duplicate_key' }, { kind: 'retry', upsert: false }],
    ['plain update matched nothing: at the limit', false, { kind: 'not_matched' }, { kind: 'answer', value: null }],
    ['duplicate key without upsert: not the race', false, { kind: 'duplicate_key' }, { kind: 'fail' }],
    ['an upsert reported as matching nothing', true, { kind: 'not_matched' }, { kind: 'retry', upsert: false }],
  ];
  it.each(cases)('%s', (_name, upserted, outcome, step) => {
    expect(nextConsumeStep(upserted, outcome)).toEqual(step);
  });
});

type Doc = Record<string, any>;

/**
 * `usage_periods` on the stand-in, where the conditional findOneAndUpdate `consume` sends upserts when
 * the filter matches nothing and fails with E11000 when the `_id` exists. `attempts`: the requests sent.
 */
function periodsCollection(docs: Map<string, Doc> = new Map()) {
  const db = new FakeDb();
  const collection = db.collection('usage_periods');
  for (const [id, doc] of docs) collection.docs.set(id, doc);
  const attempts = () => db.callsTo('usage_periods').map((c) => ({ upsert: (c.args[2] as { upsert?: boolean }).upsert === true }));
  return { collection, docs: collection.docs, attempts };
}

/** The day counters (`usage_days`) on a stand-in of their own: these tests look at the period's document. */
const storeOver = (periods: unknown) =>
  createMongoUsageStore({ periods, days: new FakeDb().collection('usage_days') } as unknown as MemoryCollections);

describe('MongoDB usage.consume', () => {
  it('counts both of two first requests of a period that race on the upsert', async () => {
    const { collection, docs, attempts } = periodsCollection();
    // The other first request of the period inserts the document between our match and our insert:
    // MongoDB answers the upsert with E11000.
    collection.answer(
      'findOneAndUpdate',
      (filter: { _id: string }) => {
        docs.set(filter._id, { _id: filter._id, tenantId: 't', period: '2030-01', reads: 1 });
        throw duplicateKey();
      },
      1,
    );
    expect(await storeOver(collection).consume('t', '2030-01', 'reads', 10)).toBe(2);
    expect(docs.get('t:2030-01')!.reads).toBe(2);
    expect(attempts()).toEqual([{ upsert: true }, { upsert: false }]);
  });

  it('answers null at the limit, and counts nothing', async () => {
    const { collection, docs } = periodsCollection(new Map([['t:2030-01', { _id: 't:2030-01', reads: 2 }]]));
    expect(await storeOver(collection).consume('t', '2030-01', 'reads', 2)).toBeNull();
    expect(docs.get('t:2030-01')!.reads).toBe(2);
  });

  it('counts the first request of a period, and a counter the period does not have yet', async () => {
    const { collection, docs } = periodsCollection();
    const store = storeOver(collection);
    expect(await store.consume('t', '2030-01', 'reads', 5)).toBe(1);
    expect(await store.consume('t', '2030-01', 'searches', 5, 2)).toBe(2);
    expect(docs.get('t:2030-01')).toEqual({ _id: 't:2030-01', tenantId: 't', period: '2030-01', reads: 1, searches: 2 });
  });

  it('raises a failure other than a duplicate key', async () => {
    const failing = periodsCollection().collection.answer('findOneAndUpdate', () => {
      throw new MongoServerError({ message: 'not primary', code: 10107 });
    });
    await expect(storeOver(failing).consume('t', '2030-01', 'reads', 5)).rejects.toThrow('not primary');
  });
});
