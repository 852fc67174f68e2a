import type { RoleName } from '../services/roles.js';

/**
 * Invitations to join a tenant. A tenant has at most one pending invitation per email; it is
 * accepted or declined once, by the account holding that email. "Expired" is decided by time
 * (`expiresAt`), never stored. Times are RFC 3339 strings (`Date#toISOString`, so they compare as strings).
 *
 * The invitee's reads (`listPendingForEmail`, `get`, `accept`, `decline`) are not tenant-scoped: an
 * invitation is how a tenant becomes visible to someone outside it. The service checks the email.
 *
 * An invitation carries its inviter's authority: it can be accepted only while the inviter is a member
 * of the tenant whose own role may grant the invited role (`mayAssign` in server/services/roles.ts),
 * checked in the same step that adds the membership.
 */
/** `cancelled`: withdrawn by the tenant, or void because its inviter may no longer grant its role. */
export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'cancelled';

export interface InvitationRecord {
  id: string;
  tenantId: string;
  /** Lower-cased. */
  email: string;
  role: RoleName;
  invitedBy: string;
  status: InvitationStatus;
  createdAt: string;
  expiresAt: string;
  /** When it was accepted or declined. */
  decidedAt: string | null;
}

export interface NewInvitation {
  id: string;
  email: string;
  role: RoleName;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

/** `not_replaceable`: a live pending invitation with a role outside `replaceable` is there; nothing changed. */
export type InviteResult =
  { ok: true; invitation: InvitationRecord } | { ok: false; reason: 'not_replaceable'; existing: InvitationRecord };

/** `inviter_lost_authority`: the invitation was void and is now `cancelled` (as returned); nobody was added. */
export type AcceptInvitationResult =
  | { ok: true; invitation: InvitationRecord }
  | { ok: false; reason: 'inviter_lost_authority'; invitation: InvitationRecord }
  | { ok: false; reason: 'not_found' | 'not_pending' | 'expired' | 'already_member' };

export type DeclineInvitationResult = { ok: true; invitation: InvitationRecord } | { ok: false; reason: 'not_found' | 'not_pending' };

/** `role_changed`: the pending invitation no longer has the role the caller checked; nothing changed. */
export type CancelInvitationResult =
  { ok: true; invitation: InvitationRecord } | { ok: false; reason: 'not_found' | 'not_pending' | 'role_changed' };

export interface InvitationStore {
  /**
   * Stores a pending invitation, or, when the tenant already has a pending one for the email, refreshes
   * that one's role, inviter and expiry and keeps its id and `createdAt` — provided its role is one of
   * `replaceable` (the roles the new inviter could have granted) or it has expired by
   * `invitation.createdAt`; otherwise `not_replaceable`, atomically. Returns what is stored.
   */
  invite(tenantId: string, invitation: NewInvitation, replaceable: readonly RoleName[]): Promise<InviteResult>;
  /** The pending invitations for an email that have not expired at `at`, oldest first, in every tenant. */
  listPendingForEmail(email: string, at: string): Promise<InvitationRecord[]>;
  /** The tenant's pending invitations that have not expired at `at`, oldest first. */
  listPendingForTenant(tenantId: string, at: string): Promise<InvitationRecord[]>;
  /**
   * The tenant withdraws a pending invitation (expired or not): it becomes `cancelled` at `at`, only
   * while its role is still `expectedRole` (the role the caller's permission was checked against).
   */
  cancel(tenantId: string, invitationId: string, change: { expectedRole: RoleName; at: string }): Promise<CancelInvitationResult>;
  get(invitationId: string): Promise<InvitationRecord | null>;
  /**
   * Atomically: a pending, unexpired invitation for `invitee.email` becomes accepted and the user a
   * member of its tenant with its role. Nothing changes when the user already is a member. When its
   * inviter is no longer a member whose own role may grant its role, it becomes `cancelled` instead
   * (`inviter_lost_authority`, with the invitation as it now is).
   */
  accept(invitationId: string, invitee: { email: string; userId: string }, at: string): Promise<AcceptInvitationResult>;
  /** A pending invitation for `email` becomes declined (expired ones too: declining is always allowed). */
  decline(invitationId: string, email: string, at: string): Promise<DeclineInvitationResult>;
}
