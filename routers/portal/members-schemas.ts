import { z } from 'zod';
import { roleName } from '../tenants/schemas.js';

/**
 * Shapes of the portal's members page that differ from `/auth/members`: the role change travels in a
 * PATCH body, and an invitation is addressed as `{id}`. The answers are the REST routes' own shapes.
 */

export const portalMemberPathInput = z.object({ user_id: z.uuid().meta({ description: 'The member' }) });

export const portalChangeRoleInput = portalMemberPathInput.extend({ role: roleName });

export const portalInvitationPathInput = z.object({ id: z.uuid().meta({ description: 'The invitation' }) });
