import { z } from 'zod';
import { roleNames } from '../../server/services/roles.js';
import { timestamp, uuidIdInput } from '../../server/schemas/common.js';
import { emailSchema, safeText } from '../../server/schemas/safe-text.js';

/** Shapes of `/auth/tenants`, `/auth/gettenant` and `/auth/members`. */

export const tenantListItem = z.object({
  tenant_id: z.uuid(),
  name: z.string(),
  created_at: timestamp,
  is_default: z.boolean().meta({ description: "Whether this is the user's default tenant (created at sign-up)" }),
});

export const tenantList = z.object({ tenants: z.array(tenantListItem) });

export const createTenantInput = z.object({ name: safeText().trim().min(1).max(200) });

export const primaryTenant = z.object({ tenant_id: z.uuid(), name: z.string(), is_default: z.boolean() });

export const roleName = z.enum(roleNames);

export const member = z.object({
  user_id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  role: roleName,
  joined_at: timestamp,
});

export const memberList = z.object({ members: z.array(member) });

export const changeRoleInput = z.object({ user_id: z.uuid(), role: roleName });

export const removeMemberInput = z.object({ user_id: z.uuid() });

export const removedMember = z.object({
  user_id: z.uuid(),
  removed: z.literal(true),
  revoked_api_keys: z.array(z.uuid()).meta({
    description:
      'The API keys of this tenant whose current secret the removed user had received (created and not since rotated by another, or rotated by them), now revoked',
  }),
});

export const inviteInput = z.object({
  email: emailSchema.meta({ description: 'Who is invited (case-insensitive); need not have an account yet' }),
  role: roleName,
});

/** The same answer whether or not the email has an account. */
export const invitation = z.object({
  invitation_id: z.uuid(),
  email: z.string(),
  role: roleName,
  status: z.literal('pending'),
  expires_at: timestamp,
});

export const pendingInvitation = invitation.extend({
  tenant_id: z.uuid(),
  tenant_name: z.string(),
  created_at: timestamp,
});

export const invitationList = z.object({ invitations: z.array(pendingInvitation) });

/** The tenant's view of one of its pending invitations: who sent it, since the invitation carries their authority. */
export const tenantInvitation = invitation.extend({
  created_at: timestamp,
  invited_by: z.uuid().meta({ description: 'The member who sent (or last refreshed) it' }),
});

export const tenantInvitationList = z.object({ invitations: z.array(tenantInvitation) });

export const cancelInvitationInput = z.object({ invitation_id: z.uuid() });

export const cancelledInvitation = z.object({ invitation_id: z.uuid(), status: z.literal('cancelled') });

export const invitationIdInput = uuidIdInput;

export const acceptedInvitation = z.object({ tenant_id: z.uuid(), role: roleName });

export const declinedInvitation = z.object({ invitation_id: z.uuid(), status: z.literal('declined') });
