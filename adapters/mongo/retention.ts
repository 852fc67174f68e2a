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
  // The walk below follows the versions' own (tenantId, memoryId, version) index (memory-collections.ts).

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
    async purgeSupersededVersions(tenantId, cutoff, afterMemoryId, maxMemories) {
      // The next memories in id order with versions before the cutoff: per memory the newest of them
      // (which stays) and how many there are. Read version by version, so a step reads only its memories.
      const page = new Map<string, { keep: number; n: number }>();
      const cursor = versions
        .find(
          { tenantId, memoryId: { $gt: afterMemoryId ?? '' }, createdAt: { $lt: cutoff } },
          { projection: { _id: 0, memoryId: 1, version: 1 } },
        )
        .sort({ memoryId: 1, version: 1 });
      let more = false;
      for await (const v of cursor) {
        const seen = page.get(v.memoryId);
        if (seen) {
          seen.keep = Math.max(seen.keep, v.version);
          seen.n += 1;
        } else if (page.size === maxMemories) {
          more = true;
          break;
        } else page.set(v.memoryId, { keep: v.version, n: 1 });
      }
      await cursor.close();
      let removed = 0;
      for (const [memoryId, k] of page) {
        if (k.n > 1) removed += (await versions.deleteMany({ tenantId, memoryId, version: { $lt: k.keep } })).deletedCount;
      }
      return { removed, next: more ? [...page.keys()].at(-1)! : null };
    },
  };
}
