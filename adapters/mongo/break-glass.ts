import type { Collection, Db } from 'mongodb';
import type { BreakGlassStore, BreakGlassRecord, BreakGlassStatus, EndedRequest } from '../../server/ports/break-glass.js';

interface BreakGlassDoc {
  _id: string;
  tenantId: string;
  requesterId: string;
  reason: string;
  durationMinutes: number;
  status: BreakGlassStatus;
  createdAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
  expiresAt: Date | null;
}

const toRequest = (r: BreakGlassDoc): BreakGlassRecord => ({
  id: r._id,
  tenantId: r.tenantId,
  requesterId: r.requesterId,
  reason: r.reason,
  durationMinutes: r.durationMinutes,
  status: r.status,
  createdAt: r.createdAt.toISOString(),
  decidedAt: r.decidedAt?.toISOString() ?? null,
  decidedBy: r.decidedBy,
  expiresAt: r.expiresAt?.toISOString() ?? null,
});

/** Break-glass requests in MongoDB; decisions are conditional updates from `pending`. */
export async function createMongoBreakGlassStore(db: Db): Promise<BreakGlassStore> {
  const requests: Collection<BreakGlassDoc> = db.collection<BreakGlassDoc>('break_glass_requests');
  await requests.createIndex({ tenantId: 1, createdAt: -1 }, { name: 'break_glass_tenant' });
  await requests.createIndex({ tenantId: 1, requesterId: 1, status: 1 }, { name: 'break_glass_grant' });
  return {
    async create(r) {
      await requests.insertOne({
        _id: r.id,
        tenantId: r.tenantId,
        requesterId: r.requesterId,
        reason: r.reason,
        durationMinutes: r.durationMinutes,
        status: r.status,
        createdAt: new Date(r.createdAt),
        decidedAt: r.decidedAt ? new Date(r.decidedAt) : null,
        decidedBy: r.decidedBy,
        expiresAt: r.expiresAt ? new Date(r.expiresAt) : null,
      });
    },
    async get(tenantId, id) {
      const r = await requests.findOne({ _id: id, tenantId });
      return r ? toRequest(r) : null;
    },
    async list(tenantId, filter) {
      const query = filter?.requesterId ? { tenantId, requesterId: filter.requesterId } : { tenantId };
      return (await requests.find(query).sort({ createdAt: -1, _id: 1 }).toArray()).map(toRequest);
    },
    async decide(tenantId, id, decision) {
      const updated = await requests.findOneAndUpdate(
        { _id: id, tenantId, status: 'pending' },
        {
          $set: {
            status: decision.status,
            decidedBy: decision.decidedBy,
            decidedAt: new Date(decision.decidedAt),
            expiresAt: decision.expiresAt ? new Date(decision.expiresAt) : null,
          },
        },
        { returnDocument: 'after' },
      );
      if (updated) return { ok: true, record: toRequest(updated) };
      return (await requests.countDocuments({ _id: id, tenantId }))
        ? { ok: false, reason: 'already_decided' }
        : { ok: false, reason: 'not_found' };
    },
    async activeGrant(tenantId, userId, now, requestedSince) {
      const r = await requests
        .find({
          tenantId,
          requesterId: userId,
          status: 'approved',
          expiresAt: { $gt: new Date(now) },
          createdAt: { $gte: new Date(requestedSince) },
        })
        .sort({ expiresAt: -1 })
        .limit(1)
        .next();
      return r ? toRequest(r) : null;
    },
    async endFor(tenantId, requesterId, end) {
      const at = new Date(end.at);
      const ended: EndedRequest[] = [];
      // Each update is conditional on the status read, so a concurrent decision or expiry is never overwritten.
      for (const r of await requests
        .find({ tenantId, requesterId, $or: [{ status: 'pending' }, { status: 'approved', expiresAt: { $gt: at } }] })
        .toArray()) {
        if (r.status === 'pending') {
          const res = await requests.updateOne(
            { _id: r._id, tenantId, status: 'pending' },
            { $set: { status: 'denied', decidedBy: end.by, decidedAt: at } },
          );
          if (res.modifiedCount === 1)
            ended.push({ previous: 'pending', record: toRequest({ ...r, status: 'denied', decidedBy: end.by, decidedAt: at }) });
        } else {
          const res = await requests.updateOne(
            { _id: r._id, tenantId, status: 'approved' },
            { $set: { status: 'expired', expiresAt: at } },
          );
          if (res.modifiedCount === 1) ended.push({ previous: 'approved', record: toRequest({ ...r, status: 'expired', expiresAt: at }) });
        }
      }
      // A pending request approved between the read and the update above is ended on a second pass.
      const late = await requests
        .find({ tenantId, requesterId, status: 'approved', expiresAt: { $gt: at }, _id: { $nin: ended.map((e) => e.record.id) } })
        .toArray();
      for (const r of late) {
        const res = await requests.updateOne({ _id: r._id, tenantId, status: 'approved' }, { $set: { status: 'expired', expiresAt: at } });
        if (res.modifiedCount === 1) ended.push({ previous: 'approved', record: toRequest({ ...r, status: 'expired', expiresAt: at }) });
      }
      return ended;
    },
    async expireDue(tenantId, now) {
      const due = await requests.find({ tenantId, status: 'approved', expiresAt: { $lte: new Date(now) } }).toArray();
      const changed: BreakGlassRecord[] = [];
      for (const r of due) {
        const res = await requests.updateOne({ _id: r._id, tenantId, status: 'approved' }, { $set: { status: 'expired' } });
        if (res.modifiedCount === 1) changed.push(toRequest({ ...r, status: 'expired' }));
      }
      return changed;
    },
  };
}
