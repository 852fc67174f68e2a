import { z } from 'zod';
import { timestamp } from '../../server/schemas/common.js';
import { roleNames } from '../../server/services/roles.js';

/** Shapes of the portal's sign-in routes (`/api/portal/login`, `session`, `logout`). */

export const portalTenant = z.object({
  tenant_id: z.uuid(),
  name: z.string(),
  role: z.enum(roleNames).meta({ description: "The signed-in user's role in this tenant" }),
  plan: z.string(),
  status: z.string().meta({ description: '`active` or `suspended`' }),
  is_default: z.boolean(),
});

export const portalSessionOutput = z.object({
  csrf_token: z.string().meta({ description: 'Send as X-CSRF-Token on every state-changing portal call of this session' }),
  user_id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  tenant_id: z.uuid().meta({ description: 'The tenant signed in to: used when a request sends no X-Tenant-ID' }),
  tenants: z.array(portalTenant).meta({ description: "The user's tenants, oldest membership first" }),
  method: z.enum(['password', 'sso']),
  expires_at: timestamp,
});

export const portalLogoutOutput = z.object({ signed_out: z.literal(true) });
