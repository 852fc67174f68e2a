import { MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { nextConsumeStep, type ConsumeOutcome, type ConsumeStep } from '../../adapters/mongo/consume-retry.js';
import type { MemoryCollections } from '../../adapters/mongo/memory-collections.js';
import { createMongoUsageStore } from '../../adapters/mongo/usage-store.js';

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

function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([k, cond]) => {
    if (k === '$or') return (cond as Doc[]).some((f) => matches(doc, f));
    if (cond !== null && typeof cond === 'object') {
      if ('$lte' in cond && !(typeof doc[k] === 'number' && doc[k] <= cond.$lte)) return false;
      if ('$exists' in cond && k in doc !== cond.$exists) return false;
      return true;
    }
    return doc[k] === cond;
  });
}

/**
 * `usage_periods` as MongoDB answers the one request `consume` sends: a conditional findOneAndUpdate
 * whose upsert inserts when the filter matches nothing, failing with E11000 when the `_id` exists.
 * `beforeInsert` runs just before such an insert: where a concurrent request's insert lands.
 */
function periodsCollection(docs: Map<string, Doc>, beforeInsert: (id: string) => void = () => {}) {
  const attempts: { upsert: boolean }[] = [];
  const collection = {
    async findOneAndUpdate(filter: Doc, update: Doc, options: { upsert?: boolean }) {
      attempts.push({ upsert: options.upsert === true });
      const id = filter._id as string;
      const inc = update.$inc as Record<string, number>;
      const current = docs.get(id);
      if (current && matches(current, filter)) {
        for (const [k, by] of Object.entries(inc)) current[k] = (current[k] ?? 0) + by;
        return { ...current };
      }
      if (!options.upsert) return null;
      beforeInsert(id);
      if (docs.has(id)) throw new MongoServerError({ message: `E11000 duplicate key error dup key: { _id: "${id}" }`, code: 11000 });
      const inserted = { _id: id, ...update.$setOnInsert, ...inc };
      docs.set(id, inserted);
      return { ...inserted };
    },
  };
  return { collection, attempts };
}

const storeOver = (periods: unknown) => createMongoUsageStore({ periods } as unknown as MemoryCollections);

describe('MongoDB usage.consume', () => {
  it('counts both of two first requests of a period that race on the upsert', async () => {
    const docs = new Map<string, Doc>();
    let raced = false;
    const { collection, attempts } = periodsCollection(docs, (id) => {
      // The other first request of the period inserts the document between our match and our insert.
      if (!raced) docs.set(id, { _id: id, tenantId: 't', period: '2030-01', reads: 1 });
      raced = true;
    });
    expect(await storeOver(collection).consume('t', '2030-01', 'reads', 10)).toBe(2);
    expect(docs.get('t:2030-01')!.reads).toBe(2);
    expect(attempts).toEqual([{ upsert: true }, { upsert: false }]);
  });

  it('answers null at the limit, and counts nothing', async () => {
    const docs = new Map<string, Doc>([['t:2030-01', { _id: 't:2030-01', reads: 2 }]]);
    const { collection } = periodsCollection(docs);
    expect(await storeOver(collection).consume('t', '2030-01', 'reads', 2)).toBeNull();
    expect(docs.get('t:2030-01')!.reads).toBe(2);
  });

  it('counts the first request of a period, and a counter the period does not have yet', async () => {
    const docs = new Map<string, Doc>();
    const store = storeOver(periodsCollection(docs).collection);
    expect(await store.consume('t', '2030-01', 'reads', 5)).toBe(1);
    expect(await store.consume('t', '2030-01', 'searches', 5, 2)).toBe(2);
    expect(docs.get('t:2030-01')).toEqual({ _id: 't:2030-01', tenantId: 't', period: '2030-01', reads: 1, searches: 2 });
  });

  it('raises a failure other than a duplicate key', async () => {
    const failing = {
      findOneAndUpdate: async () => {
        throw new MongoServerError({ message: 'not primary', code: 10107 });
      },
    };
    await expect(storeOver(failing).consume('t', '2030-01', 'reads', 5)).rejects.toThrow('not primary');
  });
});
