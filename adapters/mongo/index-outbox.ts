import type { IndexedMemory, SearchIndex } from '../../server/ports/search-index.js';
import type { MemoryCollections, OutboxDoc } from './memory-collections.js';

/** Where index rows go (the search index of the server profile); null keeps work in the outbox. */
export type MongoIndexSink = Pick<SearchIndex, 'upsert' | 'remove'> | null;

/**
 * The search index outbox: index work is recorded in the transaction that changes a memory, then
 * applied to the search index after commit (`flush`).
 */
export interface IndexOutbox {
  entry(tenantId: string, memoryId: string, op: OutboxDoc['op'], doc: IndexedMemory | null, at: string, version?: number): OutboxDoc;
  flush(tenantId: string): Promise<void>;
}

export function createIndexOutbox(c: Pick<MemoryCollections, 'memories' | 'outbox'>, index: MongoIndexSink): IndexOutbox {
  const { memories, outbox } = c;
  const outboxDoc = (
    tenantId: string,
    memoryId: string,
    op: OutboxDoc['op'],
    doc: IndexedMemory | null,
    at: string,
    version = 0,
  ): OutboxDoc => ({
    _id: `${tenantId}:${memoryId}:${op}:${at}:${Math.random().toString(36).slice(2)}`,
    tenantId,
    memoryId,
    version,
    op,
    doc: doc ? { ...doc, vector: doc.vector ? Array.from(doc.vector) : null } : null,
    at,
  });

  const flushing = new Map<string, Promise<void>>();

  /**
   * Applies the tenant's outbox to the search index, oldest first, one flush per tenant at a time in
   * this process. Each entry is checked against the memory's current state, so a replayed or stale
   * entry can never put back what a later commit or a delete took out: a memory that is gone or merged
   * is removed; an upsert is applied only while it describes the current committed version, and
   * removed again if the memory was deleted meanwhile. Entries stay on failure (next commit retries).
   */
  function flushOutbox(tenantId: string): Promise<void> {
    if (!index) return Promise.resolve();
    const previous = flushing.get(tenantId) ?? Promise.resolve();
    const run = previous.then(async () => {
      const state = async (memoryId: string) =>
        memories.findOne({ _id: memoryId, tenantId }, { projection: { _id: 1, committedVersion: 1, mergedInto: 1 } });
      for (;;) {
        const batch = await outbox.find({ tenantId }).sort({ at: 1, _id: 1 }).limit(200).toArray();
        for (const e of batch) {
          const current = await state(e.memoryId);
          if (!current || current.mergedInto !== null) await index.remove(tenantId, e.memoryId);
          else if (e.op === 'upsert' && e.doc && e.version === current.committedVersion) {
            await index.upsert(tenantId, { ...e.doc, vector: e.doc.vector ? Float32Array.from(e.doc.vector) : null });
            const after = await state(e.memoryId);
            if (!after || after.mergedInto !== null) await index.remove(tenantId, e.memoryId);
          }
          await outbox.deleteOne({ _id: e._id });
        }
        if (batch.length < 200) return;
      }
    });
    const settled = run.catch(() => undefined);
    flushing.set(tenantId, settled);
    void settled.then(() => {
      if (flushing.get(tenantId) === settled) flushing.delete(tenantId);
    });
    return settled;
  }

  return { entry: outboxDoc, flush: flushOutbox };
}
