import type { RoleName } from '../services/roles.js';

/**
 * Invitations to join a tenant. A tenant has at most one pending invitation per email; it is
 * accepted or declined once, by the account holding that email. "Expired" is decided by time
 * (`expiresAt`), never stored. Times are RFC 3339 strings (`Date#toISOString`, so they compare as strings).
 *
 * The invitee's reads (`listPendingForEmail`, `get`, `accept`, `decline`) are not tenant-scoped: an
 * invitation is how a tenant becomes visible to someone outside it. The service checks the email.
 */
export type InvitationStatus = 'pending' | 'accepted' | 'declined';

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

export type AcceptInvitationResult =
  | { ok: true; invitation: InvitationRecord }
  | { ok: false; reason: 'not_found' | 'not_pending' | 'expired' | 'already_member' };

export type DeclineInvitationResult = { ok: true; invitation: InvitationRecord } | { ok: false; reason: 'not_found' | 'not_pending' };

export interface InvitationsPort {
  /**
   * Stores a pending invitation, or, when the tenant already has a pending one for the email (expired
   * or not), refreshes that one's role, inviter and expiry and keeps its id and `createdAt`. Returns
   * what is stored.
   */
  invite(tenantId: string, invitation: NewInvitation): Promise<InvitationRecord>;
  /** The pending invitations for an email that have not expired at `at`, oldest first, in every tenant. */
  listPendingForEmail(email: string, at: string): Promise<InvitationRecord[]>;
  get(invitationId: string): Promise<InvitationRecord | null>;
  /**
   * Atomically: a pending, unexpired invitation for `invitee.email` becomes accepted and the user a
   * member of its tenant with its role. Nothing changes when the user already is a member.
   */
  accept(invitationId: string, invitee: { email: string; userId: string }, at: string): Promise<AcceptInvitationResult>;
  /** A pending invitation for `email` becomes declined (expired ones too: declining is always allowed). */
  decline(invitationId: string, email: string, at: string): Promise<DeclineInvitationResult>;
}
