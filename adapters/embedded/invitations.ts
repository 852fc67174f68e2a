import type { RoleName } from '../../server/services/roles.js';
import type { InvitationRecord, InvitationStatus, InvitationsPort } from '../../server/ports/invitations.js';
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

/** Invitations in the embedded database (migration 5); accepting adds the membership in the same transaction. */
export function createEmbeddedInvitationsPort(db: EmbeddedDatabase): InvitationsPort {
  const upsert = db.prepare(
    `INSERT INTO invitations (id, tenant_id, email, role, invited_by, status, created_at, expires_at, decided_at)
     VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, NULL)
     ON CONFLICT (tenant_id, email) WHERE status = 'pending'
     DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, expires_at = excluded.expires_at
     RETURNING ${cols}`,
  );
  const byId = db.prepare(`SELECT ${cols} FROM invitations WHERE id = ?`);
  const pendingFor = db.prepare(`SELECT ${cols} FROM invitations WHERE email = ? AND status = 'pending' AND expires_at > ? ORDER BY created_at, rowid`);
  const decide = db.prepare(`UPDATE invitations SET status = ?, decided_at = ? WHERE id = ? AND status = 'pending' RETURNING ${cols}`);
  const isMember = db.prepare('SELECT 1 FROM memberships WHERE tenant_id = ? AND user_id = ?').pluck();
  const addMember = db.prepare('INSERT INTO memberships (tenant_id, user_id, role, is_default, created_at) VALUES (?, ?, ?, 0, ?)');

  const acceptTx = db.transaction((id: string, invitee: { email: string; userId: string }, at: string) => {
    const row = byId.get([id]) as InvitationRow | undefined;
    if (!row || row.email !== invitee.email) return { ok: false as const, reason: 'not_found' as const };
    if (row.status !== 'pending') return { ok: false as const, reason: 'not_pending' as const };
    if (row.expires_at <= at) return { ok: false as const, reason: 'expired' as const };
    if (isMember.get([row.tenant_id, invitee.userId])) return { ok: false as const, reason: 'already_member' as const };
    const accepted = decide.get(['accepted', at, id]) as InvitationRow;
    addMember.run([row.tenant_id, invitee.userId, row.role, at]);
    return { ok: true as const, invitation: toInvitation(accepted) };
  });

  return {
    async invite(tenantId, inv) {
      const row = upsert.get([inv.id, tenantId, inv.email.toLowerCase(), inv.role, inv.invitedBy, inv.createdAt, inv.expiresAt]) as InvitationRow;
      return toInvitation(row);
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
