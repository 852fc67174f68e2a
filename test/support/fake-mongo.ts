import { MongoServerError } from 'mongodb';

/**
 * A recording in-memory stand-in for the `mongodb` database and collection calls the server profile's
 * adapters make, so unit tests can run them here and assert the requests they send (no MongoDB server
 * runs on this machine). It is not MongoDB: the contract suites (test/contract/) run the adapters
 * against a real server where MONGODB_URL is set, and only they check the wire format and the
 * server's semantics.
 *
 * Every call but `listCollections` is logged in order on the database's `calls` (`{ collection,
 * method, args }`, options as passed or `{}`); `writtenDocuments` reads the documents they write. A
 * method answers from the documents held in `docs` unless a test set its answer with `answer(method,
 * fn, times)` (for `find`, `aggregate` and `listCollections`: the rows), for what state cannot stage:
 * a concurrent writer, a server error. A method not written below does not exist.
 *
 * Understood: filters on top-level fields by equality (null also matching a missing field), `$in`,
 * `$gt`/`$gte`/`$lt`/`$lte`, `$exists` and `$or`; updates `$set`, `$setOnInsert`, `$inc` (code 14,
 * TypeMismatch, on a field that is not a number, as MongoDB), `$max`, with an upsert seeded from the filter's equality fields; projections of top-level fields; `find` with
 * `sort`/`limit`; `aggregate` with `$sort`, `$group` (`$first`, `$min`), `$limit`; `bulkWrite` of
 * `updateOne`; E11000 on a second `_id`; index names (`createIndexes`, `indexExists`, `dropIndex`, code
 * 27 for a missing one); the collections that exist (created, written to, indexed or holding documents)
 * and code 48 when creating one again; `distinct` sorted. Another operator or stage, or a dotted
 * path in a filter, update or projection, throws. Not modelled, so answered wrongly rather than
 * refused: arrays as values (multikey), BSON's order across types, unique indexes other than `_id`,
 * index use, sessions and transactions (a session option is ignored and `inTransaction` just runs its
 * function: no isolation, no rollback).
 */

type Doc = Record<string, any>;
type Answer = (...args: any[]) => unknown;

export interface Call {
  collection: string;
  method: string;
  args: any[];
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
        case '$exists':
          return (value !== undefined) === Boolean(arg);
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
    if (key.startsWith('$') || key.includes('.')) throw new Error(`fake-mongo: filter key ${key} not supported`);
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

/** Applies an update's operators to `doc` in place; `$setOnInsert` only when the upsert inserts it. */
function applyUpdate(doc: Doc, update: Doc, inserting: boolean): void {
  for (const [op, fields] of Object.entries(update)) {
    for (const [k, v] of Object.entries(fields as Doc)) {
      if (k.includes('.')) throw new Error(`fake-mongo: dotted path ${k} not supported`);
      if (op === '$set' || (op === '$setOnInsert' && inserting)) doc[k] = structuredClone(v);
      else if (op === '$setOnInsert') continue;
      else if (op === '$inc') {
        if (doc[k] !== undefined && typeof doc[k] !== 'number') {
          throw new MongoServerError({
            message: `Cannot apply $inc to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${k}' of non-numeric type ${typeof doc[k]}`,
            code: 14,
            codeName: 'TypeMismatch',
          } as never);
        }
        doc[k] = (doc[k] ?? 0) + (v as number);
      } else if (op === '$max') {
        if (doc[k] === undefined || compare(v, doc[k]) > 0) doc[k] = structuredClone(v);
      } else throw new Error(`fake-mongo: update operator ${op} not supported`);
    }
  }
}

/** Top-level fields only: an inclusion (`{ a: 1 }`) or an exclusion (`{ a: 0 }`); `_id` kept unless 0. */
function project(doc: Doc, spec: Doc | undefined): Doc {
  if (!spec) return doc;
  if (Object.keys(spec).some((k) => k.includes('.'))) throw new Error('fake-mongo: dotted projection not supported');
  const including = Object.entries(spec).some(([k, v]) => k !== '_id' && Boolean(v));
  const keep = (k: string) =>
    k === '_id' ? spec._id === undefined || Boolean(spec._id) : including ? Boolean(spec[k]) : !(k in spec) || Boolean(spec[k]);
  return Object.fromEntries(Object.entries(doc).filter(([k]) => keep(k)));
}

export const duplicateKey = () => new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 } as never);

/** Answers set by a test in place of the in-memory state's, each for a number of calls. */
class Answers {
  private readonly byMethod = new Map<string, { fn: Answer; left: number }>();
  set(method: string, fn: Answer, times: number) {
    this.byMethod.set(method, { fn, left: times });
  }
  take(method: string): Answer | undefined {
    const a = this.byMethod.get(method);
    if (!a || a.left <= 0) return undefined;
    a.left -= 1;
    return a.fn;
  }
}

export class FakeCollection {
  readonly docs = new Map<string, Doc>();
  /** Index names: `_id_` and whatever `createIndexes` declared (a test may add an earlier layout's). */
  readonly indexes = new Set<string>(['_id_']);
  /** Created, or written to (MongoDB creates a collection on its first write or index). */
  exists = false;
  private readonly answers = new Answers();
  constructor(
    readonly name: string,
    private readonly calls: Call[],
  ) {}

  /** The next `times` calls of `method` are recorded and answered by `fn` (a throw rejects). */
  answer(method: string, fn: Answer, times = Infinity): this {
    this.answers.set(method, fn, times);
    return this;
  }

  /** Records a call; the answer a test set for it, if any. */
  private called(method: string, ...args: unknown[]): Answer | undefined {
    this.calls.push({ collection: this.name, method, args });
    return this.answers.take(method);
  }

  private all(filter: Doc): Doc[] {
    return [...this.docs.values()].filter((d) => matches(d, filter));
  }

  private store(doc: Doc) {
    if (this.docs.has(doc._id)) throw duplicateKey();
    this.docs.set(doc._id, structuredClone(doc));
    this.exists = true;
  }

  find(filter: Doc = {}, options: Doc = {}) {
    const answer = this.called('find', filter, options);
    const call = this.calls.at(-1)!;
    let sort: Record<string, 1 | -1> | null = null;
    let limit = 0;
    const cursor = {
      sort: (spec: Record<string, 1 | -1>) => {
        sort = spec;
        call.args.push({ sort: spec });
        return cursor;
      },
      limit: (n: number) => {
        limit = n;
        call.args.push({ limit: n });
        return cursor;
      },
      toArray: async () => {
        if (answer) return answer(filter, options) as Doc[];
        let out = this.all(filter);
        if (sort) out = sortBy(out, sort);
        if (limit > 0) out = out.slice(0, limit);
        return out.map((d) => project(structuredClone(d), options.projection));
      },
    };
    return cursor;
  }

  async findOne(filter: Doc, options: Doc = {}) {
    const answer = this.called('findOne', filter, options);
    if (answer) return answer(filter, options);
    const d = this.all(filter)[0];
    return d ? project(structuredClone(d), options.projection) : null;
  }

  async insertOne(doc: Doc, options: Doc = {}) {
    const answer = this.called('insertOne', doc, options);
    if (answer) return answer(doc, options);
    this.store(doc);
    return { acknowledged: true, insertedId: doc._id };
  }

  async insertMany(docs: Doc[], options: Doc = {}) {
    const answer = this.called('insertMany', docs, options);
    if (answer) return answer(docs, options);
    for (const d of docs) this.store(d);
    return { acknowledged: true, insertedCount: docs.length };
  }

  async updateOne(filter: Doc, update: Doc, options: Doc = {}) {
    const answer = this.called('updateOne', filter, update, options);
    if (answer) return answer(filter, update, options);
    const { matchedCount, upsertedCount } = this.update(filter, update, options);
    return { acknowledged: true, matchedCount, modifiedCount: matchedCount, upsertedCount };
  }

  async findOneAndUpdate(filter: Doc, update: Doc, options: Doc = {}) {
    const answer = this.called('findOneAndUpdate', filter, update, options);
    if (answer) return answer(filter, update, options);
    const { before, doc } = this.update(filter, update, options);
    const out = options.returnDocument === 'after' ? doc : before;
    return out ? project(structuredClone(out), options.projection) : null;
  }

  /** The first matching document updated, or (with `upsert`) one inserted: seeded from the filter's equality fields. */
  private update(filter: Doc, update: Doc, options: Doc) {
    const found = this.all(filter)[0];
    if (found) {
      const before = structuredClone(found);
      applyUpdate(found, update, false);
      return { before, doc: found, matchedCount: 1, upsertedCount: 0 };
    }
    if (!options.upsert) return { before: null, doc: null, matchedCount: 0, upsertedCount: 0 };
    const seed = Object.entries(filter).filter(([k, v]) => !k.startsWith('$') && (v === null || typeof v !== 'object'));
    const doc: Doc = structuredClone(Object.fromEntries(seed));
    applyUpdate(doc, update, true);
    this.store(doc);
    return { before: null, doc: this.docs.get(doc._id)!, matchedCount: 0, upsertedCount: 1 };
  }

  async replaceOne(filter: Doc, doc: Doc, options: Doc = {}) {
    const answer = this.called('replaceOne', filter, doc, options);
    if (answer) return answer(filter, doc, options);
    const found = this.all(filter)[0];
    if (!found && !options.upsert) return { acknowledged: true, matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
    const id = found?._id ?? doc._id ?? filter._id;
    this.docs.set(id, structuredClone({ ...doc, _id: id }));
    this.exists = true;
    return { acknowledged: true, matchedCount: found ? 1 : 0, modifiedCount: found ? 1 : 0, upsertedCount: found ? 0 : 1 };
  }

  async bulkWrite(ops: Doc[], options: Doc = {}) {
    const answer = this.called('bulkWrite', ops, options);
    if (answer) return answer(ops, options);
    let matchedCount = 0;
    let upsertedCount = 0;
    for (const op of ops) {
      if (!op.updateOne) throw new Error('fake-mongo: only updateOne in bulkWrite');
      const r = this.update(op.updateOne.filter, op.updateOne.update, op.updateOne);
      matchedCount += r.matchedCount;
      upsertedCount += r.upsertedCount;
    }
    return { ok: 1, matchedCount, upsertedCount };
  }

  async deleteOne(filter: Doc, options: Doc = {}) {
    const answer = this.called('deleteOne', filter, options);
    if (answer) return answer(filter, options);
    const d = this.all(filter)[0];
    if (d) this.docs.delete(d._id);
    return { acknowledged: true, deletedCount: d ? 1 : 0 };
  }

  async deleteMany(filter: Doc, options: Doc = {}) {
    const answer = this.called('deleteMany', filter, options);
    if (answer) return answer(filter, options);
    const found = this.all(filter);
    for (const d of found) this.docs.delete(d._id);
    return { acknowledged: true, deletedCount: found.length };
  }

  async findOneAndDelete(filter: Doc, options: Doc = {}) {
    const answer = this.called('findOneAndDelete', filter, options);
    if (answer) return answer(filter, options);
    const d = this.all(filter)[0];
    if (d) this.docs.delete(d._id);
    return d ?? null;
  }

  /** Sorted, unlike the server's (whose order is unspecified). */
  async distinct(field: string, filter?: Doc) {
    const answer = filter ? this.called('distinct', field, filter) : this.called('distinct', field);
    if (answer) return answer(field, filter);
    return [...new Set(this.all(filter ?? {}).map((d) => d[field]))].sort();
  }

  async countDocuments(filter: Doc = {}) {
    const answer = this.called('countDocuments', filter);
    if (answer) return answer(filter);
    return this.all(filter).length;
  }

  async estimatedDocumentCount() {
    const answer = this.called('estimatedDocumentCount');
    if (answer) return answer();
    return this.docs.size;
  }

  async createIndexes(specs: Doc[]) {
    const answer = this.called('createIndexes', specs);
    if (answer) return answer(specs);
    for (const s of specs) this.indexes.add(s.name);
    this.exists = true;
    return specs.map((s) => s.name);
  }

  async indexExists(name: string) {
    const answer = this.called('indexExists', name);
    if (answer) return answer(name);
    return this.indexes.has(name);
  }

  async dropIndex(name: string) {
    const answer = this.called('dropIndex', name);
    if (answer) return answer(name);
    if (!this.indexes.delete(name)) {
      throw new MongoServerError({ message: `index not found with name [${name}]`, code: 27 } as never);
    }
    return { ok: 1 };
  }

  /** `$sort`, `$group` (`$first`, `$min`), `$limit`: what the write queue's look for tenants uses. */
  aggregate(pipeline: Doc[]) {
    const answer = this.called('aggregate', pipeline);
    return {
      toArray: async () => {
        if (answer) return answer(pipeline) as Doc[];
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
  private readonly answers = new Answers();

  /** `existing`: collections there already, as an earlier start-up left them. */
  constructor(existing: readonly string[] = []) {
    for (const name of existing) this.collection(name).exists = true;
  }

  /** The next `times` calls of `method` (`listCollections`: answer the listed `{ name }`s) answered by `fn`. */
  answer(method: 'listCollections' | 'createCollection', fn: Answer, times = Infinity): this {
    this.answers.set(method, fn, times);
    return this;
  }

  /** The collections that exist now. */
  collectionNames(): string[] {
    return [...this.collections.values()].filter((c) => c.exists || c.docs.size > 0).map((c) => c.name);
  }

  /** Not recorded. */
  listCollections(...args: unknown[]) {
    const answer = this.answers.take('listCollections');
    return {
      toArray: async () => (answer ? (answer(...args) as { name: string }[]) : this.collectionNames().map((name) => ({ name }))),
    };
  }

  async createCollection(name: string) {
    this.calls.push({ collection: name, method: 'createCollection', args: [name] });
    const answer = this.answers.take('createCollection');
    if (answer) return answer(name);
    const c = this.collection(name);
    if (this.collectionNames().includes(name)) {
      throw new MongoServerError({ message: `Collection ${name} already exists.`, code: 48 } as never);
    }
    c.exists = true;
    return c;
  }

  /** The collection's handle, as `Db.collection` gives it: getting one does not create it. */
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

/**
 * The documents the logged calls write to, as `collection/_id` (a filter without `_id` is kept whole):
 * two transactions that write a common document conflict.
 */
export function writtenDocuments(calls: readonly Call[]): string[] {
  const out: string[] = [];
  const key = (collection: string, filter: any) =>
    `${collection}/${filter && '_id' in filter ? String(filter._id) : JSON.stringify(filter ?? null)}`;
  const filtered = /^(updateOne|updateMany|replaceOne|findOneAndUpdate|findOneAndReplace|findOneAndDelete|deleteOne|deleteMany)$/;
  for (const c of calls) {
    const [first] = c.args;
    if (c.method === 'insertOne') out.push(key(c.collection, first));
    else if (c.method === 'insertMany') for (const d of first as unknown[]) out.push(key(c.collection, d));
    else if (filtered.test(c.method)) out.push(key(c.collection, first));
    else if (c.method === 'bulkWrite') {
      for (const op of first as any[]) {
        const body = op.updateOne ?? op.replaceOne ?? op.deleteOne ?? op.updateMany ?? op.deleteMany;
        out.push(op.insertOne ? key(c.collection, op.insertOne.document) : key(c.collection, body.filter));
      }
    }
  }
  return out;
}
