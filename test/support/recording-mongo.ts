/**
 * Stand-ins for MongoDB driver objects that record what an adapter asks of them (no server runs on
 * this machine): each collection method records its collection, name and arguments and answers from
 * `answers`, else with an empty result of the driver's shape. The wire format itself is checked by
 * the contract suites against a real server; these answer "which documents did this touch".
 */
export interface RecordedCall {
  collection: string;
  method: string;
  args: any[];
}

type Answers = Record<string, (...args: any[]) => unknown>;

const EMPTY: Answers = {
  findOne: () => null,
  findOneAndUpdate: () => null,
  insertOne: (doc: { _id?: unknown }) => ({ acknowledged: true, insertedId: doc._id }),
  insertMany: (docs: unknown[]) => ({ acknowledged: true, insertedCount: docs.length }),
  updateOne: () => ({ acknowledged: true, matchedCount: 1, modifiedCount: 1, upsertedCount: 0 }),
  replaceOne: () => ({ acknowledged: true, matchedCount: 1, modifiedCount: 1, upsertedCount: 0 }),
  deleteOne: () => ({ acknowledged: true, deletedCount: 1 }),
  deleteMany: () => ({ acknowledged: true, deletedCount: 0 }),
  bulkWrite: () => ({ ok: 1 }),
  countDocuments: () => 0,
  distinct: () => [],
  createIndexes: () => [],
  indexExists: () => false,
  dropIndex: () => ({ ok: 1 }),
};

const CURSOR_METHODS = new Set(['find', 'aggregate']);

function cursor(rows: unknown[]) {
  const c = {
    sort: () => c,
    limit: () => c,
    skip: () => c,
    project: () => c,
    toArray: async () => rows,
  };
  return c;
}

export function recordingCollection(name: string, calls: RecordedCall[], answers: Answers = {}): any {
  return new Proxy(
    {},
    {
      get(_target, method: string) {
        if (method === 'then') return undefined; // not a thenable
        if (method === 'collectionName') return name;
        return (...args: any[]) => {
          calls.push({ collection: name, method, args });
          const answer = answers[method] ?? EMPTY[method];
          if (CURSOR_METHODS.has(method)) return cursor((answer?.(...args) as unknown[] | undefined) ?? []);
          return Promise.resolve(answer ? answer(...args) : undefined);
        };
      },
    },
  );
}

/** The documents a recorded call writes to, as `collection/_id` (a filter without `_id` is kept whole). */
export function writtenDocuments(calls: readonly RecordedCall[]): string[] {
  const out: string[] = [];
  const key = (collection: string, filter: any) =>
    `${collection}/${filter && '_id' in filter ? String(filter._id) : JSON.stringify(filter ?? null)}`;
  for (const c of calls) {
    const [first] = c.args;
    if (c.method === 'insertOne') out.push(key(c.collection, first));
    else if (c.method === 'insertMany') for (const d of first as unknown[]) out.push(key(c.collection, d));
    else if (/^(updateOne|updateMany|replaceOne|findOneAndUpdate|findOneAndReplace|findOneAndDelete|deleteOne|deleteMany)$/.test(c.method))
      out.push(key(c.collection, first));
    else if (c.method === 'bulkWrite') {
      for (const op of first as any[]) {
        const body = op.updateOne ?? op.replaceOne ?? op.deleteOne ?? op.updateMany ?? op.deleteMany;
        out.push(op.insertOne ? key(c.collection, op.insertOne.document) : key(c.collection, body.filter));
      }
    }
  }
  return out;
}
