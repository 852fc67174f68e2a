import { Binary, MongoServerError, type Collection, type Db } from 'mongodb';
import type { RoleName } from '../../server/services/roles.js';
import type { ExternalIdentityRecord, UserRecord, UserStore } from '../../server/ports/users.js';
import type { MemberRecord, MembershipRecord, TenantRecord, TenantStore } from '../../server/ports/tenants.js';
import type { RefreshTokenRecord, SessionRecord, SessionStore } from '../../server/ports/sessions.js';
import type { StepUpTokenRecord, StepUpTokenStore } from '../../server/ports/step-up.js';

/**
 * Identity ports in MongoDB: users (+ SSO identities), tenants and memberships, sessions with their
 * refresh tokens, and step-up tokens. Times are stored as BSON dates; secrets only as SHA-256
 * (BSON binary). Multi-document steps that the embedded profile does in one transaction are done
 * here with conditional single-document writes plus compensation, so no replica set is required.
 */

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;
const d = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();
const isoOrNull = (date: Date | null) => (date === null ? null : date.toISOString());
const bytes = (b: Binary | Uint8Array) => (b instanceof Binary ? new Uint8Array(b.buffer) : new Uint8Array(b));

interface UserDoc {
  _id: string;
  email: string;
  name: string | null;
  passwordHash: string | null;
  createdAt: Date;
}
interface IdentityDoc {
  _id: { provider: string; subject: string };
  userId: string;
  email: string | null;
  createdAt: Date;
}
const toUser = (u: UserDoc): UserRecord => ({
  id: u._id,
  email: u.email,
  name: u.name,
  passwordHash: u.passwordHash,
  createdAt: iso(u.createdAt),
});

export async function createMongoUserStore(db: Db): Promise<UserStore> {
  const users: Collection<UserDoc> = db.collection<UserDoc>('users');
  const identities: Collection<IdentityDoc> = db.collection<IdentityDoc>('user_identities');
  await users.createIndex({ email: 1 }, { unique: true, name: 'users_email' });
  await identities.createIndex({ userId: 1 }, { name: 'user_identities_user' });
  return {
    async create(user) {
      const email = user.email.toLowerCase();
      try {
        await users.insertOne({ _id: user.id, email, name: user.name, passwordHash: user.passwordHash, createdAt: d(user.createdAt) });
        return { ...user, email };
      } catch (err) {
        if (isDuplicateKey(err)) return null;
        throw err;
      }
    },
    async findById(userId) {
      const u = await users.findOne({ _id: userId });
      return u ? toUser(u) : null;
    },
    async findByEmail(email) {
      const u = await users.findOne({ email: email.toLowerCase() });
      return u ? toUser(u) : null;
    },
    async setPasswordHash(userId, passwordHash) {
      await users.updateOne({ _id: userId }, { $set: { passwordHash } });
    },
    async delete(userId) {
      await identities.deleteMany({ userId });
      await db.collection('memberships').deleteMany({ userId });
      await users.deleteOne({ _id: userId });
    },
    async linkIdentity(identity) {
      try {
        await identities.insertOne({
          _id: { provider: identity.provider, subject: identity.subject },
          userId: identity.userId,
          email: identity.email,
          createdAt: d(identity.createdAt),
        });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    async findByIdentity(provider, subject) {
      const link = await identities.findOne({ _id: { provider, subject } });
      if (!link) return null;
      const u = await users.findOne({ _id: link.userId });
      return u ? toUser(u) : null;
    },
    async listIdentities(userId) {
      const docs = await identities.find({ userId }).sort({ createdAt: 1 }).toArray();
      return docs.map((i): ExternalIdentityRecord => ({
        provider: i._id.provider,
        subject: i._id.subject,
        userId: i.userId,
        email: i.email,
        createdAt: iso(i.createdAt),
      }));
    },
  };
}

interface TenantDoc {
  _id: string;
  name: string;
  plan: string;
  status: string;
  createdAt: Date;
}
export interface MembershipDoc {
  _id: { tenantId: string; userId: string };
  tenantId: string;
  userId: string;
  role: RoleName;
  isDefault: boolean;
  createdAt: Date;
  /** Set by a role change; absent until then (`createdAt` stands in). */
  roleSince?: Date;
}
const toTenant = (t: TenantDoc): TenantRecord => ({ id: t._id, name: t.name, plan: t.plan, status: t.status, createdAt: iso(t.createdAt) });
const toMembership = (m: MembershipDoc): MembershipRecord => ({
  tenantId: m.tenantId,
  userId: m.userId,
  role: m.role,
  isDefault: m.isDefault,
  createdAt: iso(m.createdAt),
  roleSince: iso(m.roleSince ?? m.createdAt),
});

export async function createMongoTenantStore(db: Db): Promise<TenantStore> {
  const tenants: Collection<TenantDoc> = db.collection<TenantDoc>('tenants');
  const memberships: Collection<MembershipDoc> = db.collection<MembershipDoc>('memberships');
  const users: Collection<UserDoc> = db.collection<UserDoc>('users');
  await memberships.createIndex({ userId: 1, createdAt: 1 }, { name: 'memberships_user' });
  await memberships.createIndex({ tenantId: 1, createdAt: 1 }, { name: 'memberships_tenant' });

  const withUsers = async (docs: MembershipDoc[]): Promise<MemberRecord[]> => {
    const found = await users.find({ _id: { $in: docs.map((m) => m.userId) } }).toArray();
    const byId = new Map(found.map((u) => [u._id, u]));
    return docs.flatMap((m) => {
      const u = byId.get(m.userId);
      return u ? [{ ...toMembership(m), email: u.email, name: u.name }] : [];
    });
  };

  return {
    async create(tenant, owner) {
      await tenants.insertOne({
        _id: tenant.id,
        name: tenant.name,
        plan: tenant.plan,
        status: tenant.status,
        createdAt: d(tenant.createdAt),
      });
      try {
        await memberships.insertOne({
          _id: { tenantId: tenant.id, userId: owner.userId },
          tenantId: tenant.id,
          userId: owner.userId,
          role: 'owner',
          isDefault: owner.isDefault,
          createdAt: d(owner.createdAt),
        });
      } catch (err) {
        await tenants.deleteOne({ _id: tenant.id });
        throw err;
      }
      return tenant;
    },
    async get(tenantId) {
      const t = await tenants.findOne({ _id: tenantId });
      return t ? toTenant(t) : null;
    },
    async setStatus(tenantId, status) {
      // One atomic step that also tells the status it replaced (for the audit event).
      const before = await tenants.findOneAndUpdate({ _id: tenantId }, { $set: { status } }, { returnDocument: 'before' });
      return before ? { tenant: toTenant({ ...before, status }), previous: before.status } : null;
    },
    async listForUser(userId) {
      const ms = await memberships.find({ userId }).sort({ createdAt: 1, tenantId: 1 }).toArray();
      const ts = await tenants.find({ _id: { $in: ms.map((m) => m.tenantId) } }).toArray();
      const byId = new Map(ts.map((t) => [t._id, t]));
      return ms.flatMap((m) => {
        const t = byId.get(m.tenantId);
        return t ? [{ tenant: toTenant(t), membership: toMembership(m) }] : [];
      });
    },
    async listIds(after, limit) {
      const docs = await tenants
        .find(after === null ? {} : { _id: { $gt: after } }, { projection: { _id: 1 } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d) => d._id);
    },
    async membership(tenantId, userId) {
      const m = await memberships.findOne({ _id: { tenantId, userId } });
      return m ? toMembership(m) : null;
    },
    async listMembers(tenantId) {
      return withUsers(await memberships.find({ tenantId }).sort({ createdAt: 1, userId: 1 }).toArray());
    },
    async getMember(tenantId, userId) {
      const m = await memberships.findOne({ _id: { tenantId, userId } });
      return m ? ((await withUsers([m]))[0] ?? null) : null;
    },
    async addMember(tenantId, m) {
      try {
        await memberships.insertOne({
          _id: { tenantId, userId: m.userId },
          tenantId,
          userId: m.userId,
          role: m.role,
          isDefault: m.isDefault,
          createdAt: d(m.createdAt),
        });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    async changeRole(tenantId, userId, { from, to: role, at }) {
      // The filter on the role read by the caller makes this a compare-and-set in one document update.
      const before = await memberships.findOneAndUpdate(
        { _id: { tenantId, userId }, role: from },
        { $set: { role, roleSince: d(at) } },
        { returnDocument: 'before' },
      );
      if (!before)
        return (await memberships.countDocuments({ _id: { tenantId, userId } }))
          ? { ok: false, reason: 'role_changed' }
          : { ok: false, reason: 'not_found' };
      if (before.role === 'owner' && role !== 'owner' && (await memberships.countDocuments({ tenantId, role: 'owner' })) === 0) {
        // Demoted the last owner (possibly racing another demotion): put it back.
        await memberships.updateOne(
          { _id: { tenantId, userId } },
          { $set: { role: 'owner', roleSince: before.roleSince ?? before.createdAt } },
        );
        return { ok: false, reason: 'last_owner' };
      }
      const [member] = await withUsers([{ ...before, role, roleSince: d(at) }]);
      return member ? { ok: true, previous: before.role, member } : { ok: false, reason: 'not_found' };
    },
    async removeMember(tenantId, userId, expectedRole) {
      const [current] = await withUsers(await memberships.find({ _id: { tenantId, userId } }).toArray());
      const removed = await memberships.findOneAndDelete({ _id: { tenantId, userId }, role: expectedRole });
      if (!removed)
        return (await memberships.countDocuments({ _id: { tenantId, userId } }))
          ? { ok: false, reason: 'role_changed' }
          : { ok: false, reason: 'not_found' };
      if (removed.role === 'owner' && (await memberships.countDocuments({ tenantId, role: 'owner' })) === 0) {
        // Removed the last owner (possibly racing another removal or demotion): put it back.
        await memberships.insertOne(removed);
        return { ok: false, reason: 'last_owner' };
      }
      return { ok: true, member: current ?? { ...toMembership(removed), email: '', name: null } };
    },
  };
}

interface SessionDoc {
  _id: string;
  userId: string;
  tenantId: string;
  method: 'password' | 'sso';
  /** Absent on sessions stored before the portal existed: those are `api`. */
  channel?: 'api' | 'portal';
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
  authenticatedAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  revokeReason: string | null;
}
interface RefreshDoc {
  _id: string;
  sessionId: string;
  secretHash: Binary;
  createdAt: Date;
  rotatedAt: Date | null;
}

export async function createMongoSessionStore(db: Db): Promise<SessionStore> {
  const sessions: Collection<SessionDoc> = db.collection<SessionDoc>('sessions');
  const refresh: Collection<RefreshDoc> = db.collection<RefreshDoc>('refresh_tokens');
  await sessions.createIndex({ userId: 1 }, { name: 'sessions_user' });
  await refresh.createIndex({ sessionId: 1 }, { name: 'refresh_tokens_session' });
  const refreshDoc = (r: RefreshTokenRecord): RefreshDoc => ({
    _id: r.id,
    sessionId: r.sessionId,
    secretHash: new Binary(r.secretHash),
    createdAt: d(r.createdAt),
    rotatedAt: r.rotatedAt === null ? null : d(r.rotatedAt),
  });
  return {
    async create(s, r) {
      await sessions.insertOne({
        _id: s.id,
        userId: s.userId,
        tenantId: s.tenantId,
        method: s.method,
        channel: s.channel,
        ip: s.ip,
        userAgent: s.userAgent,
        createdAt: d(s.createdAt),
        authenticatedAt: d(s.authenticatedAt),
        expiresAt: d(s.expiresAt),
        revokedAt: null,
        revokeReason: null,
      });
      await refresh.insertOne(refreshDoc(r));
    },
    async get(sessionId) {
      const s = await sessions.findOne({ _id: sessionId });
      if (!s) return null;
      return {
        id: s._id,
        userId: s.userId,
        tenantId: s.tenantId,
        method: s.method,
        channel: s.channel ?? 'api',
        ip: s.ip,
        userAgent: s.userAgent,
        createdAt: iso(s.createdAt),
        authenticatedAt: iso(s.authenticatedAt),
        expiresAt: iso(s.expiresAt),
        revokedAt: isoOrNull(s.revokedAt),
        revokeReason: s.revokeReason,
      } satisfies SessionRecord;
    },
    async findRefreshToken(tokenId) {
      const r = await refresh.findOne({ _id: tokenId });
      if (!r) return null;
      return {
        id: r._id,
        sessionId: r.sessionId,
        secretHash: bytes(r.secretHash),
        createdAt: iso(r.createdAt),
        rotatedAt: isoOrNull(r.rotatedAt),
      };
    },
    async rotateRefreshToken(oldTokenId, rotatedAt, next, sessionExpiresAt) {
      const marked = await refresh.updateOne({ _id: oldTokenId, rotatedAt: null }, { $set: { rotatedAt: d(rotatedAt) } });
      if (marked.modifiedCount !== 1) return 'already_rotated';
      await refresh.insertOne(refreshDoc(next));
      await sessions.updateOne({ _id: next.sessionId, revokedAt: null }, { $set: { expiresAt: d(sessionExpiresAt) } });
      return 'rotated';
    },
    async revoke(sessionId, at, reason) {
      await sessions.updateOne({ _id: sessionId, revokedAt: null }, { $set: { revokedAt: d(at), revokeReason: reason } });
    },
    async revokeAllForUser(userId, at, reason) {
      const r = await sessions.updateMany({ userId, revokedAt: null }, { $set: { revokedAt: d(at), revokeReason: reason } });
      return r.modifiedCount;
    },
    async purgeEnded(before) {
      const cutoff = d(before);
      const ended = await sessions
        .find({ $or: [{ expiresAt: { $lt: cutoff } }, { revokedAt: { $ne: null, $lt: cutoff } }] }, { projection: { _id: 1 } })
        .toArray();
      if (ended.length === 0) return 0;
      const ids = ended.map((s) => s._id);
      // Tokens first: a crash in between leaves sessions that the next purge removes, never orphan tokens.
      await refresh.deleteMany({ sessionId: { $in: ids } });
      return (await sessions.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
  };
}

interface StepUpDoc {
  _id: string;
  secretHash: Binary;
  userId: string;
  tenantId: string;
  sessionId: string;
  action: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function createMongoStepUpTokenStore(db: Db): Promise<StepUpTokenStore> {
  const tokens: Collection<StepUpDoc> = db.collection<StepUpDoc>('step_up_tokens');
  // MongoDB's TTL monitor removes expired tokens by itself (verification still checks expiry).
  await tokens.createIndex({ expiresAt: 1 }, { name: 'step_up_tokens_ttl', expireAfterSeconds: 0 });
  return {
    async create(t) {
      await tokens.insertOne({
        _id: t.id,
        secretHash: new Binary(t.secretHash),
        userId: t.userId,
        tenantId: t.tenantId,
        sessionId: t.sessionId,
        action: t.action,
        createdAt: d(t.createdAt),
        expiresAt: d(t.expiresAt),
      });
    },
    async find(tenantId, tokenId) {
      const t = await tokens.findOne({ _id: tokenId, tenantId });
      if (!t) return null;
      return {
        id: t._id,
        secretHash: bytes(t.secretHash),
        userId: t.userId,
        tenantId: t.tenantId,
        sessionId: t.sessionId,
        action: t.action,
        createdAt: iso(t.createdAt),
        expiresAt: iso(t.expiresAt),
      } satisfies StepUpTokenRecord;
    },
    async delete(tenantId, tokenId) {
      await tokens.deleteOne({ _id: tokenId, tenantId });
    },
    async deleteExpired(before) {
      return (await tokens.deleteMany({ expiresAt: { $lt: d(before) } })).deletedCount;
    },
  };
}
