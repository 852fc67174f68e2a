import { MongoServerError, type Collection, type Db } from 'mongodb';
import { mayAssign, type RoleName } from '../../server/services/roles.js';
import type { InvitationRecord, InvitationStatus, InvitationStore, InviteResult } from '../../server/ports/invitations.js';
import type { MembershipDoc } from './identity.js';

interface InvitationDoc {
  _id: string;
  tenantId: string;
  email: string;
  role: RoleName;
  invitedBy: string;
  status: InvitationStatus;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
}

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;
const d = (iso: string) => new Date(iso);
const toInvitation = (doc: InvitationDoc): InvitationRecord => ({
  id: doc._id,
  tenantId: doc.tenantId,
  email: doc.email,
  role: doc.role,
  invitedBy: doc.invitedBy,
  status: doc.status,
  createdAt: doc.createdAt.toISOString(),
  expiresAt: doc.expiresAt.toISOString(),
  decidedAt: doc.decidedAt ? doc.decidedAt.toISOString() : null,
});

/**
 * Invitations in MongoDB. One pending invitation per tenant and email is kept by a partial unique
 * index; accepting is a conditional update of the invitation and an insert of the membership, with
 * the invitation put back to pending when the insert finds the user already a member (no replica set
 * needed, as in `identity.ts`).
 */
export async function createMongoInvitationStore(db: Db): Promise<InvitationStore> {
  const invitations: Collection<InvitationDoc> = db.collection<InvitationDoc>('invitations');
  const memberships: Collection<MembershipDoc> = db.collection<MembershipDoc>('memberships');
  await invitations.createIndex(
    { tenantId: 1, email: 1 },
    { unique: true, partialFilterExpression: { status: 'pending' }, name: 'invitations_pending' },
  );
  await invitations.createIndex({ email: 1, status: 1, createdAt: 1 }, { name: 'invitations_email' });

  // Matches a pending invitation only if the new inviter may replace it; when one is there that they
  // may not, the upsert's insert meets the unique index (duplicate key) and nothing changes.
  const upsert = (tenantId: string, inv: Parameters<InvitationStore['invite']>[1], replaceable: readonly RoleName[]) =>
    invitations.findOneAndUpdate(
      {
        tenantId,
        email: inv.email.toLowerCase(),
        status: 'pending',
        $or: [{ role: { $in: [...replaceable] } }, { expiresAt: { $lte: d(inv.createdAt) } }],
      },
      {
        $set: { role: inv.role, invitedBy: inv.invitedBy, expiresAt: d(inv.expiresAt) },
        $setOnInsert: {
          _id: inv.id,
          tenantId,
          email: inv.email.toLowerCase(),
          status: 'pending' as const,
          createdAt: d(inv.createdAt),
          decidedAt: null,
        },
      },
      { upsert: true, returnDocument: 'after' },
    );

  return {
    async invite(tenantId, inv, replaceable): Promise<InviteResult> {
      const email = inv.email.toLowerCase();
      for (let attempt = 0; ; attempt++) {
        try {
          const doc = await upsert(tenantId, inv, replaceable);
          if (!doc) throw new Error('invitation upsert returned nothing');
          return { ok: true, invitation: toInvitation(doc) };
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
          // A pending invitation is there: one this inviter may not replace, or a concurrent insert (retry once).
          const existing = await invitations.findOne({ tenantId, email, status: 'pending' });
          const replaceableNow =
            existing && (replaceable.includes(existing.role) || existing.expiresAt.getTime() <= Date.parse(inv.createdAt));
          if (existing && !replaceableNow) return { ok: false, reason: 'not_replaceable', existing: toInvitation(existing) };
          if (attempt > 0) throw err;
        }
      }
    },
    async listPendingForTenant(tenantId, at) {
      const docs = await invitations
        .find({ tenantId, status: 'pending', expiresAt: { $gt: d(at) } })
        .sort({ createdAt: 1, _id: 1 })
        .toArray();
      return docs.map(toInvitation);
    },
    async cancel(tenantId, id, change) {
      const cancelled = await invitations.findOneAndUpdate(
        { _id: id, tenantId, status: 'pending', role: change.expectedRole },
        { $set: { status: 'cancelled', decidedAt: d(change.at) } },
        { returnDocument: 'after' },
      );
      if (cancelled) return { ok: true, invitation: toInvitation(cancelled) };
      const doc = await invitations.findOne({ _id: id, tenantId });
      if (!doc) return { ok: false, reason: 'not_found' };
      return { ok: false, reason: doc.status !== 'pending' ? 'not_pending' : 'role_changed' };
    },
    async listPendingForEmail(email, at) {
      const docs = await invitations
        .find({ email: email.toLowerCase(), status: 'pending', expiresAt: { $gt: d(at) } })
        .sort({ createdAt: 1, _id: 1 })
        .toArray();
      return docs.map(toInvitation);
    },
    async get(id) {
      const doc = await invitations.findOne({ _id: id });
      return doc ? toInvitation(doc) : null;
    },
    async accept(id, invitee, at) {
      const email = invitee.email.toLowerCase();
      const doc = await invitations.findOne({ _id: id });
      if (!doc || doc.email !== email) return { ok: false, reason: 'not_found' };
      if (doc.status !== 'pending') return { ok: false, reason: 'not_pending' };
      if (doc.expiresAt.getTime() <= Date.parse(at)) return { ok: false, reason: 'expired' };
      const inviter = await memberships.findOne({ _id: { tenantId: doc.tenantId, userId: doc.invitedBy } });
      if (!inviter || !mayAssign(inviter.role, doc.role)) {
        // Without a transaction the inviter could still lose their role after this read; see docs/auth.md.
        const voided = await invitations.findOneAndUpdate(
          { _id: id, status: 'pending' },
          { $set: { status: 'cancelled', decidedAt: d(at) } },
          { returnDocument: 'after' },
        );
        if (!voided) return { ok: false, reason: 'not_pending' };
        return { ok: false, reason: 'inviter_lost_authority', invitation: toInvitation(voided) };
      }
      if (await memberships.findOne({ _id: { tenantId: doc.tenantId, userId: invitee.userId } }))
        return { ok: false, reason: 'already_member' };
      const accepted = await invitations.findOneAndUpdate(
        { _id: id, email, status: 'pending', expiresAt: { $gt: d(at) } },
        { $set: { status: 'accepted', decidedAt: d(at) } },
        { returnDocument: 'after' },
      );
      if (!accepted) return { ok: false, reason: 'not_pending' }; // another accept or decline won
      try {
        await memberships.insertOne({
          _id: { tenantId: doc.tenantId, userId: invitee.userId },
          tenantId: doc.tenantId,
          userId: invitee.userId,
          role: doc.role,
          isDefault: false,
          createdAt: d(at),
        });
      } catch (err) {
        await invitations.updateOne({ _id: id }, { $set: { status: 'pending', decidedAt: null } });
        if (isDuplicateKey(err)) return { ok: false, reason: 'already_member' };
        throw err;
      }
      return { ok: true, invitation: toInvitation(accepted) };
    },
    async decline(id, email, at) {
      const doc = await invitations.findOne({ _id: id });
      if (!doc || doc.email !== email.toLowerCase()) return { ok: false, reason: 'not_found' };
      const declined = await invitations.findOneAndUpdate(
        { _id: id, status: 'pending' },
        { $set: { status: 'declined', decidedAt: d(at) } },
        { returnDocument: 'after' },
      );
      return declined ? { ok: true, invitation: toInvitation(declined) } : { ok: false, reason: 'not_pending' };
    },
  };
}
