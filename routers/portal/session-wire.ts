import type { UserTenant } from '../../server/ports/tenants.js';
import type { UserRecord } from '../../server/ports/users.js';
import type { PortalSession } from '../../server/services/portal/portal-sessions.js';

export const toPortalTenant = (t: UserTenant) => ({
  tenant_id: t.tenant.id,
  name: t.tenant.name,
  role: t.membership.role,
  plan: t.tenant.plan,
  status: t.tenant.status,
  is_default: t.membership.isDefault,
});

export const toPortalSession = (
  session: PortalSession,
  csrfToken: string,
  user: Pick<UserRecord, 'email' | 'name'>,
  tenants: UserTenant[],
) => ({
  csrf_token: csrfToken,
  user_id: session.userId,
  email: user.email,
  name: user.name,
  tenant_id: session.tenantId,
  tenants: tenants.map(toPortalTenant),
  method: session.method,
  expires_at: session.expiresAt,
});
