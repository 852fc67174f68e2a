import type { InvitationRecord } from '../../server/ports/invitations.js';
import type { MemberRecord, UserTenant } from '../../server/ports/tenants.js';

/** The tenant and membership routes' wire form (snake_case) of what the tenants and members services return. */

export const toTenantItem = (t: UserTenant) => ({
  tenant_id: t.tenant.id,
  name: t.tenant.name,
  created_at: t.tenant.createdAt,
  is_default: t.membership.isDefault,
});

export const toPrimaryTenant = (t: UserTenant) => ({ tenant_id: t.tenant.id, name: t.tenant.name, is_default: t.membership.isDefault });

/** Only pending invitations are ever listed or returned by `invite`. */
export const toInvitation = (i: InvitationRecord) => ({
  invitation_id: i.id,
  email: i.email,
  role: i.role,
  status: 'pending' as const,
  expires_at: i.expiresAt,
});

/** An invitation as its invitee sees it: which tenant it is from. */
export const toReceivedInvitation = (i: InvitationRecord & { tenantName: string }) => ({
  ...toInvitation(i),
  tenant_id: i.tenantId,
  tenant_name: i.tenantName,
  created_at: i.createdAt,
});

/** An invitation as its tenant sees it: who sent it. */
export const toSentInvitation = (i: InvitationRecord) => ({ ...toInvitation(i), created_at: i.createdAt, invited_by: i.invitedBy });

export const toMember = (m: MemberRecord) => ({ user_id: m.userId, email: m.email, name: m.name, role: m.role, joined_at: m.createdAt });
