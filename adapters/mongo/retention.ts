import type { Collection, Db } from 'mongodb';
import type { RetentionSettings, RetentionStore } from '../../server/ports/retention.js';
import { MEMORY_COLLECTION_NAMES, type VersionDoc } from './memory-collections.js';

interface RetentionDoc {
  _id: string;
  deletedDays: number | null;
  supersededDays: number | null;
  updatedAt: string;
  updatedBy: string | null;
}

const toSettings = (d: RetentionDoc): RetentionSettings => ({
  deletedDays: d.deletedDays,
  supersededDays: d.supersededDays,
  updatedAt: d.updatedAt,
  updatedBy: d.updatedBy,
});

/** Retention settings (collection `retention_settings`, one document per tenant) and the superseded-version purge. */
export async function createMongoRetentionStore(db: Db): Promise<RetentionStore> {
  const settings: Collection<RetentionDoc> = db.collection<RetentionDoc>('retention_settings');
  const versions: Collection<VersionDoc> = db.collection<VersionDoc>(MEMORY_COLLECTION_NAMES.versions);
  await versions.createIndex({ tenantId: 1, createdAt: 1 }, { name: 'memory_versions_tenant_created' });

  return {
    async get(tenantId) {
      const doc = await settings.findOne({ _id: tenantId });
      return doc ? toSettings(doc) : { deletedDays: null, supersededDays: null, updatedAt: null, updatedBy: null };
    },
    async put(tenantId, s) {
      const doc = await settings.findOneAndUpdate(
        { _id: tenantId },
        { $set: { deletedDays: s.deletedDays, supersededDays: s.supersededDays, updatedAt: s.updatedAt ?? '', updatedBy: s.updatedBy } },
        { upsert: true, returnDocument: 'after' },
      );
      return toSettings(doc!);
    },
    async listLimited(afterTenantId, limit) {
      const docs = await settings
        .find({ _id: { $gt: afterTenantId ?? '' }, $or: [{ deletedDays: { $ne: null } }, { supersededDays: { $ne: null } }] })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => ({ tenantId: d._id, settings: toSettings(d) }));
    },
    async purgeSupersededVersions(tenantId, cutoff, maxMemories) {
      // Per memory, the newest version created before the cutoff; only memories with older versions left.
      const keepers = await versions
        .aggregate<{ _id: string; keep: number }>([
          { $match: { tenantId, createdAt: { $lt: cutoff } } },
          { $group: { _id: '$memoryId', keep: { $max: '$version' }, n: { $sum: 1 } } },
          { $match: { n: { $gt: 1 } } },
          { $limit: maxMemories },
          { $project: { keep: 1 } },
        ])
        .toArray();
      let removed = 0;
      for (const k of keepers) {
        removed += (await versions.deleteMany({ tenantId, memoryId: k._id, version: { $lt: k.keep } })).deletedCount;
      }
      return removed;
    },
  };
}
