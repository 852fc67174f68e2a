import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { RoleName } from '../../server/services/roles.js';
import type { InvitationRecord, InvitationStatus, InvitationsPort } from '../../server/ports/invitations.js';
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
export async function createMongoInvitationsPort(db: Db): Promise<InvitationsPort> {
  const invitations: Collection<InvitationDoc> = db.collection<InvitationDoc>('invitations');
  const memberships: Collection<MembershipDoc> = db.collection<MembershipDoc>('memberships');
  await invitations.createIndex({ tenantId: 1, email: 1 }, { unique: true, partialFilterExpression: { status: 'pending' }, name: 'invitations_pending' });
  await invitations.createIndex({ email: 1, status: 1, createdAt: 1 }, { name: 'invitations_email' });

  const upsert = (tenantId: string, inv: Parameters<InvitationsPort['invite']>[1]) =>
    invitations.findOneAndUpdate(
      { tenantId, email: inv.email.toLowerCase(), status: 'pending' },
      {
        $set: { role: inv.role, invitedBy: inv.invitedBy, expiresAt: d(inv.expiresAt) },
        $setOnInsert: { _id: inv.id, tenantId, email: inv.email.toLowerCase(), status: 'pending' as const, createdAt: d(inv.createdAt), decidedAt: null },
      },
      { upsert: true, returnDocument: 'after' },
    );

  return {
    async invite(tenantId, inv) {
      let doc: InvitationDoc | null;
      try {
        doc = await upsert(tenantId, inv);
      } catch (err) {
        // Two concurrent upserts may both insert; the unique index keeps one, the retry updates it.
        if (!isDuplicateKey(err)) throw err;
        doc = await upsert(tenantId, inv);
      }
      if (!doc) throw new Error('invitation upsert returned nothing');
      return toInvitation(doc);
    },
    async listPendingForEmail(email, at) {
      const docs = await invitations.find({ email: email.toLowerCase(), status: 'pending', expiresAt: { $gt: d(at) } }).sort({ createdAt: 1, _id: 1 }).toArray();
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
      if (await memberships.findOne({ _id: { tenantId: doc.tenantId, userId: invitee.userId } })) return { ok: false, reason: 'already_member' };
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
      const declined = await invitations.findOneAndUpdate({ _id: id, status: 'pending' }, { $set: { status: 'declined', decidedAt: d(at) } }, { returnDocument: 'after' });
      return declined ? { ok: true, invitation: toInvitation(declined) } : { ok: false, reason: 'not_pending' };
    },
  };
}
