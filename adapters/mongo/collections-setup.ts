import { MongoServerError, type Collection, type Db } from 'mongodb';

/** Server error codes the start-up steps expect when another instance got there first. */
const NAMESPACE_EXISTS = 48;
const INDEX_NOT_FOUND = 27;

const hasCode = (err: unknown, code: number) => err instanceof MongoServerError && err.code === code;

/**
 * Creates the collections that do not exist yet, at start-up rather than by their first write: a
 * collection first written inside a transaction is created by that transaction, which MongoDB refuses
 * in a cross-shard write transaction or when the server turns it off
 * (`shouldMultiDocTxnCreateCollectionAndIndexes`), and which makes concurrent transactions whose
 * snapshot predates the new collection fail and retry. Safe when several instances start at once.
 */
export async function ensureCollections(db: Pick<Db, 'listCollections' | 'createCollection'>, names: readonly string[]): Promise<void> {
  const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
  for (const name of names) {
    if (existing.has(name)) continue;
    try {
      await db.createCollection(name);
    } catch (err) {
      if (!hasCode(err, NAMESPACE_EXISTS)) throw err;
    }
  }
}

/** Drops indexes an earlier layout declared and this one no longer uses; a missing one is fine. */
export async function dropIndexesIfPresent(
  collection: Pick<Collection, 'indexExists' | 'dropIndex'>,
  names: readonly string[],
): Promise<void> {
  for (const name of names) {
    if (!(await collection.indexExists(name))) continue;
    try {
      await collection.dropIndex(name);
    } catch (err) {
      if (!hasCode(err, INDEX_NOT_FOUND)) throw err;
    }
  }
}
