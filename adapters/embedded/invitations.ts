import { mayAssign, type RoleName } from '../../server/services/roles.js';
import type {
  CancelInvitationResult,
  InvitationRecord,
  InvitationStatus,
  InvitationStore,
  InviteResult,
  NewInvitation,
} from '../../server/ports/invitations.js';
import type { EmbeddedDatabase } from './database.js';

interface InvitationRow {
  id: string;
  tenant_id: string;
  email: string;
  role: RoleName;
  invited_by: string;
  status: InvitationStatus;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
}

const cols = 'id, tenant_id, email, role, invited_by, status, created_at, expires_at, decided_at';
const toInvitation = (r: InvitationRow): InvitationRecord => ({
  id: r.id,
  tenantId: r.tenant_id,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  status: r.status,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  decidedAt: r.decided_at,
});

/**
 * Invitations in the embedded database (migration 5); accepting checks the inviter's authority and adds
 * the membership in the same transaction.
 */
export function createEmbeddedInvitationStore(db: EmbeddedDatabase): InvitationStore {
  // The DO UPDATE's WHERE keeps a pending invitation the new inviter could not have made (no row returned).
  const upsert = db.prepare(
    `INSERT INTO invitations (id, tenant_id, email, role, invited_by, status, created_at, expires_at, decided_at)
     VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, NULL)
     ON CONFLICT (tenant_id, email) WHERE status = 'pending'
     DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, expires_at = excluded.expires_at
       WHERE invitations.role IN (SELECT value FROM json_each(?)) OR invitations.expires_at <= excluded.created_at
     RETURNING ${cols}`,
  );
  const pendingForEmailIn = db.prepare(`SELECT ${cols} FROM invitations WHERE tenant_id = ? AND email = ? AND status = 'pending'`);
  const pendingOfTenant = db.prepare(
    `SELECT ${cols} FROM invitations WHERE tenant_id = ? AND status = 'pending' AND expires_at > ? ORDER BY created_at, rowid`,
  );
  const cancelStmt = db.prepare(
    `UPDATE invitations SET status = 'cancelled', decided_at = ? WHERE tenant_id = ? AND id = ? AND status = 'pending' AND role = ? RETURNING ${cols}`,
  );
  const roleIn = db.prepare('SELECT role FROM memberships WHERE tenant_id = ? AND user_id = ?');
  const byId = db.prepare(`SELECT ${cols} FROM invitations WHERE id = ?`);
  const pendingFor = db.prepare(
    `SELECT ${cols} FROM invitations WHERE email = ? AND status = 'pending' AND expires_at > ? ORDER BY created_at, rowid`,
  );
  const decide = db.prepare(`UPDATE invitations SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending' RETURNING ${cols}`);
  const isMember = db.prepare('SELECT 1 FROM memberships WHERE tenant_id = ? AND user_id = ?').pluck();
  const addMember = db.prepare('INSERT INTO memberships (tenant_id, user_id, role, is_default, created_at) VALUES (?, ?, ?, 0, ?)');

  const acceptTx = db.transaction((id: string, invitee: { email: string; userId: string }, at: string) => {
    const row = byId.get([id]) as InvitationRow | undefined;
    if (!row || row.email !== invitee.email) return { ok: false as const, reason: 'not_found' as const };
    if (row.status !== 'pending') return { ok: false as const, reason: 'not_pending' as const };
    if (row.expires_at <= at) return { ok: false as const, reason: 'expired' as const };
    const inviterRole = (roleIn.get([row.tenant_id, row.invited_by]) as { role: RoleName } | undefined)?.role;
    if (!inviterRole || !mayAssign(inviterRole, row.role)) {
      const voided = decide.get(['cancelled', at, id]) as InvitationRow;
      return { ok: false as const, reason: 'inviter_lost_authority' as const, invitation: toInvitation(voided) };
    }
    if (isMember.get([row.tenant_id, invitee.userId])) return { ok: false as const, reason: 'already_member' as const };
    const accepted = decide.get(['accepted', at, id]) as InvitationRow;
    addMember.run([row.tenant_id, invitee.userId, row.role, at]);
    return { ok: true as const, invitation: toInvitation(accepted) };
  });

  const inviteTx = db.transaction((tenantId: string, inv: NewInvitation, replaceable: readonly RoleName[]): InviteResult => {
    const email = inv.email.toLowerCase();
    const row = upsert.get([
      inv.id,
      tenantId,
      email,
      inv.role,
      inv.invitedBy,
      inv.createdAt,
      inv.expiresAt,
      JSON.stringify(replaceable),
    ]) as InvitationRow | undefined;
    if (row) return { ok: true, invitation: toInvitation(row) };
    return { ok: false, reason: 'not_replaceable', existing: toInvitation(pendingForEmailIn.get([tenantId, email]) as InvitationRow) };
  });
  const cancelTx = db.transaction(
    (tenantId: string, id: string, change: { expectedRole: RoleName; at: string }): CancelInvitationResult => {
      const cancelled = cancelStmt.get([change.at, tenantId, id, change.expectedRole]) as InvitationRow | undefined;
      if (cancelled) return { ok: true, invitation: toInvitation(cancelled) };
      const row = byId.get([id]) as InvitationRow | undefined;
      if (!row || row.tenant_id !== tenantId) return { ok: false, reason: 'not_found' };
      return { ok: false, reason: row.status !== 'pending' ? 'not_pending' : 'role_changed' };
    },
  );

  return {
    async invite(tenantId, inv, replaceable) {
      return inviteTx.immediate(tenantId, inv, replaceable);
    },
    async listPendingForTenant(tenantId, at) {
      return (pendingOfTenant.all([tenantId, at]) as InvitationRow[]).map(toInvitation);
    },
    async cancel(tenantId, id, change) {
      return cancelTx.immediate(tenantId, id, change);
    },
    async listPendingForEmail(email, at) {
      return (pendingFor.all([email.toLowerCase(), at]) as InvitationRow[]).map(toInvitation);
    },
    async get(id) {
      const row = byId.get([id]) as InvitationRow | undefined;
      return row ? toInvitation(row) : null;
    },
    async accept(id, invitee, at) {
      // IMMEDIATE: take the write lock up front so two accepts of one invitation serialise.
      return acceptTx.immediate(id, { ...invitee, email: invitee.email.toLowerCase() }, at);
    },
    async decline(id, email, at) {
      const row = byId.get([id]) as InvitationRow | undefined;
      if (!row || row.email !== email.toLowerCase()) return { ok: false, reason: 'not_found' };
      const declined = decide.get(['declined', at, id]) as InvitationRow | undefined;
      return declined ? { ok: true, invitation: toInvitation(declined) } : { ok: false, reason: 'not_pending' };
    },
  };
}
