import type { Collection, Db } from 'mongodb';
import type { BreakGlassPort, BreakGlassRecord, BreakGlassStatus } from '../../server/ports/break-glass.js';

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
export async function createMongoBreakGlassPort(db: Db): Promise<BreakGlassPort> {
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
      return (await requests.countDocuments({ _id: id, tenantId })) ? { ok: false, reason: 'already_decided' } : { ok: false, reason: 'not_found' };
    },
    async activeGrant(tenantId, userId, now) {
      const r = await requests.find({ tenantId, requesterId: userId, status: 'approved', expiresAt: { $gt: new Date(now) } }).sort({ expiresAt: -1 }).limit(1).next();
      return r ? toRequest(r) : null;
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
