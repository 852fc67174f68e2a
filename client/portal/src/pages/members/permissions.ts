import { useQuery } from '@tanstack/react-query';
import { currentTenantId, trpc } from '../../api';

/**
 * The signed-in user's role in the URL's tenant and the permissions that role carries (the session's
 * tenants and `portal.roles`), for hiding what the role cannot do. The server decides every call; a
 * break-glass grant may add permissions this does not show.
 */
export function useMyAccess() {
  const session = useQuery(trpc.portal.session.queryOptions({}));
  const roles = useQuery({ ...trpc.portal.roles.queryOptions({}), staleTime: Infinity });
  const tenantId = currentTenantId();
  const role = session.data?.tenants.find((t) => t.tenant_id === tenantId)?.role;
  const permissions = new Set<string>(roles.data?.roles.find((r) => r.name === role)?.permissions ?? []);
  return {
    ready: session.isSuccess && roles.isSuccess,
    userId: session.data?.user_id,
    role,
    can: (permission: string) => permissions.has(permission),
  };
}
