import { MongoServerError } from 'mongodb';

/**
 * A recording in-memory stand-in for the few `mongodb` collection calls the outbox and the write queue
 * make, so unit tests can run them here and assert the requests they send (no MongoDB server runs on
 * this machine; the contract suites run the adapters against a real one). Filters understand equality
 * (null also matching a missing field), `$in`, `$gt`/`$gte`/`$lt`/`$lte` and `$or`; updates `$set`.
 * No transactions: a session option is ignored and `inTransaction` just runs its function.
 */

type Doc = Record<string, any>;

export interface Call {
  collection: string;
  method: string;
  args: unknown[];
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return -1;
  if (b === undefined || b === null) return 1;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

function matchesValue(value: unknown, cond: unknown): boolean {
  if (cond !== null && typeof cond === 'object' && !(cond instanceof Date) && !Array.isArray(cond)) {
    return Object.entries(cond).every(([op, arg]) => {
      switch (op) {
        case '$in':
          return (arg as unknown[]).some((x) => compare(value, x) === 0);
        case '$gt':
          return value !== undefined && compare(value, arg) > 0;
        case '$gte':
          return value !== undefined && compare(value, arg) >= 0;
        case '$lt':
          return value !== undefined && compare(value, arg) < 0;
        case '$lte':
          return value !== undefined && compare(value, arg) <= 0;
        default:
          throw new Error(`fake-mongo: operator ${op} not supported`);
      }
    });
  }
  if (cond === null) return value === null || value === undefined;
  return compare(value, cond) === 0;
}

export function matches(doc: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([key, cond]) => {
    if (key === '$or') return (cond as Doc[]).some((f) => matches(doc, f));
    return matchesValue(doc[key], cond);
  });
}

function sortBy(docs: Doc[], spec: Record<string, 1 | -1>): Doc[] {
  return [...docs].sort((a, b) => {
    for (const [k, dir] of Object.entries(spec)) {
      const c = compare(a[k], b[k]);
      if (c !== 0) return c * dir;
    }
    return 0;
  });
}

const duplicateKey = () => new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 } as never);

export class FakeCollection {
  readonly docs = new Map<string, Doc>();
  constructor(
    readonly name: string,
    private readonly calls: Call[],
  ) {}

  private record(method: string, ...args: unknown[]) {
    this.calls.push({ collection: this.name, method, args });
  }

  private all(filter: Doc): Doc[] {
    return [...this.docs.values()].filter((d) => matches(d, filter));
  }

  find(filter: Doc = {}, options: Doc = {}) {
    this.record('find', filter, options);
    let sort: Record<string, 1 | -1> | null = null;
    let limit = 0;
    const cursor = {
      sort: (spec: Record<string, 1 | -1>) => {
        sort = spec;
        this.calls.at(-1)!.args.push({ sort: spec });
        return cursor;
      },
      limit: (n: number) => {
        limit = n;
        this.calls.at(-1)!.args.push({ limit: n });
        return cursor;
      },
      toArray: async () => {
        let out = this.all(filter);
        if (sort) out = sortBy(out, sort);
        if (limit > 0) out = out.slice(0, limit);
        return out.map((d) => structuredClone(d));
      },
    };
    return cursor;
  }

  async findOne(filter: Doc, options: Doc = {}) {
    this.record('findOne', filter, options);
    const d = this.all(filter)[0];
    return d ? structuredClone(d) : null;
  }

  async insertOne(doc: Doc) {
    this.record('insertOne', doc);
    if (this.docs.has(doc._id)) throw duplicateKey();
    this.docs.set(doc._id, structuredClone(doc));
    return { insertedId: doc._id };
  }

  async insertMany(docs: Doc[]) {
    this.record('insertMany', docs);
    for (const d of docs) {
      if (this.docs.has(d._id)) throw duplicateKey();
      this.docs.set(d._id, structuredClone(d));
    }
    return { insertedCount: docs.length };
  }

  async updateOne(filter: Doc, update: Doc, options: Doc = {}) {
    this.record('updateOne', filter, update, options);
    return this.update(filter, update, options);
  }

  private update(filter: Doc, update: Doc, options: Doc = {}) {
    const d = this.all(filter)[0];
    if (d) {
      Object.assign(d, structuredClone(update.$set ?? {}));
      return { matchedCount: 1, modifiedCount: 1, upsertedCount: 0 };
    }
    if (!options.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
    const seed = Object.fromEntries(Object.entries(filter).filter(([k, v]) => !k.startsWith('$') && (v === null || typeof v !== 'object')));
    const doc = { ...seed, ...structuredClone(update.$set ?? {}) };
    if (this.docs.has(doc._id)) throw duplicateKey();
    this.docs.set(doc._id, doc);
    return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
  }

  async replaceOne(filter: Doc, doc: Doc, options: Doc = {}) {
    this.record('replaceOne', filter, doc, options);
    const found = this.all(filter)[0];
    if (!found && !options.upsert) return { matchedCount: 0 };
    this.docs.set(found?._id ?? doc._id ?? filter._id, structuredClone({ ...doc, _id: found?._id ?? doc._id ?? filter._id }));
    return { matchedCount: found ? 1 : 0 };
  }

  async bulkWrite(ops: Doc[], options: Doc = {}) {
    this.record('bulkWrite', ops, options);
    for (const op of ops) {
      if (!op.updateOne) throw new Error('fake-mongo: only updateOne in bulkWrite');
      this.update(op.updateOne.filter, op.updateOne.update, op.updateOne);
    }
    return { matchedCount: ops.length };
  }

  async deleteOne(filter: Doc) {
    this.record('deleteOne', filter);
    const d = this.all(filter)[0];
    if (d) this.docs.delete(d._id);
    return { deletedCount: d ? 1 : 0 };
  }

  async deleteMany(filter: Doc) {
    this.record('deleteMany', filter);
    const found = this.all(filter);
    for (const d of found) this.docs.delete(d._id);
    return { deletedCount: found.length };
  }

  async findOneAndDelete(filter: Doc) {
    this.record('findOneAndDelete', filter);
    const d = this.all(filter)[0];
    if (d) this.docs.delete(d._id);
    return d ?? null;
  }

  async distinct(field: string, filter?: Doc) {
    if (filter) this.record('distinct', field, filter);
    else this.record('distinct', field);
    filter ??= {};
    return [...new Set(this.all(filter).map((d) => d[field]))].sort();
  }

  async countDocuments(filter: Doc = {}) {
    this.record('countDocuments', filter);
    return this.all(filter).length;
  }

  async estimatedDocumentCount() {
    this.record('estimatedDocumentCount');
    return this.docs.size;
  }

  async createIndexes(specs: Doc[]) {
    this.record('createIndexes', specs);
    return specs.map((s) => s.name);
  }

  async indexExists(name: string) {
    this.record('indexExists', name);
    return false;
  }

  async dropIndex(name: string) {
    this.record('dropIndex', name);
    throw new MongoServerError({ message: `index not found with name [${name}]`, code: 27 } as never);
  }

  /** `$sort`, `$group` (`$first`, `$min`), `$limit`: what the write queue's look for tenants uses. */
  aggregate(pipeline: Doc[]) {
    this.record('aggregate', pipeline);
    return {
      toArray: async () => {
        let rows = [...this.docs.values()].map((d) => structuredClone(d));
        for (const stage of pipeline) {
          if (stage.$sort) rows = sortBy(rows, stage.$sort);
          else if (stage.$limit) rows = rows.slice(0, stage.$limit);
          else if (stage.$group) {
            const groups = new Map<unknown, Doc>();
            const { _id, ...acc } = stage.$group;
            for (const r of rows) {
              const key = r[(_id as string).slice(1)];
              const g = groups.get(key) ?? groups.set(key, { _id: key }).get(key)!;
              for (const [name, expr] of Object.entries(acc as Doc)) {
                const [op, field] = Object.entries(expr as Record<string, string>)[0]!;
                const value = r[field.slice(1)];
                if (op === '$first') {
                  if (!(name in g)) g[name] = value;
                } else if (op === '$min') {
                  if (!(name in g) || compare(value, g[name]) < 0) g[name] = value;
                } else throw new Error(`fake-mongo: accumulator ${op} not supported`);
              }
            }
            rows = [...groups.values()];
          } else throw new Error(`fake-mongo: stage ${Object.keys(stage)[0]} not supported`);
        }
        return rows;
      },
    };
  }
}

export class FakeDb {
  readonly calls: Call[] = [];
  private readonly collections = new Map<string, FakeCollection>();

  listCollections() {
    return { toArray: async () => [...this.collections.keys()].map((name) => ({ name })) };
  }

  async createCollection(name: string) {
    this.calls.push({ collection: name, method: 'createCollection', args: [name] });
    return this.collection(name);
  }

  collection(name: string): FakeCollection {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new FakeCollection(name, this.calls)));
    return c;
  }

  /** Runs `fn` with a dummy session: no isolation, no rollback. */
  inTransaction = <T>(fn: (session: never) => Promise<T>): Promise<T> => fn({} as never);

  /** The calls made to one collection since `from`. */
  callsTo(collection: string, from = 0): Call[] {
    return this.calls.slice(from).filter((c) => c.collection === collection);
  }
}
