import type { ActivateResult, KnowledgeStructureStore, StructureRecord } from '../../server/ports/knowledge.js';
import type { KnowledgeCollections, StructureDoc } from './knowledge-collections.js';
import { isDuplicateKey, type MemoryCollections } from './memory-collections.js';

function toRecord(d: StructureDoc): StructureRecord {
  const { _id, schema, ...rest } = d;
  return { ...rest, id: _id, schema: JSON.parse(schema) as StructureRecord['schema'] };
}

/** Published structure versions on MongoDB; activation runs in the shared transaction helper. */
export function createMongoKnowledgeStructureStore(
  c: Pick<KnowledgeCollections, 'structures'>,
  tx: Pick<MemoryCollections, 'inTransaction'>,
): KnowledgeStructureStore {
  const { structures } = c;
  return {
    async list(tenantId, type) {
      return (await structures.find({ tenantId, type }).sort({ createdAt: 1, _id: 1 }).toArray()).map(toRecord);
    },

    async types(tenantId) {
      return (await structures.distinct('type', { tenantId })).sort();
    },

    async get(tenantId, type, version) {
      const d = await structures.findOne({ tenantId, type, version });
      return d ? toRecord(d) : null;
    },

    async saveDraft(r) {
      const schema = JSON.stringify(r.schema);
      try {
        await structures.insertOne({
          _id: r.id,
          tenantId: r.tenantId,
          type: r.type,
          version: r.version,
          status: 'DRAFT',
          schema,
          createdAt: r.createdAt,
          activatedAt: null,
        });
        return 'created';
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      // The version exists: one conditional update replaces it only while it is a DRAFT (atomic on its own).
      const replaced = await structures.updateOne(
        { tenantId: r.tenantId, type: r.type, version: r.version, status: 'DRAFT' },
        { $set: { schema } },
      );
      return replaced.matchedCount === 1 ? 'replaced' : 'not_draft';
    },

    async activate(tenantId, type, version, at, expectedActive) {
      return tx.inTransaction(async (session): Promise<ActivateResult> => {
        if (!(await structures.findOne({ tenantId, type, version }, { session, projection: { _id: 1 } }))) return 'not_found';
        const current = await structures.findOne({ tenantId, type, status: 'ACTIVE' }, { session, projection: { version: 1 } });
        if ((current?.version ?? null) !== expectedActive && current?.version !== version) return 'changed';
        await structures.updateMany(
          { tenantId, type, status: 'ACTIVE', version: { $ne: version } },
          { $set: { status: 'DEPRECATED' } },
          { session },
        );
        // An already ACTIVE version keeps the time it was activated: activating it again changes nothing.
        await structures.updateOne(
          { tenantId, type, version, status: { $ne: 'ACTIVE' } },
          { $set: { status: 'ACTIVE', activatedAt: at } },
          { session },
        );
        return 'ok';
      });
    },
  };
}
