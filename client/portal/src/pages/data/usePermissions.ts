import { useQuery } from '@tanstack/react-query';
import { currentTenantId, trpc } from '../../api';

/**
 * What the signed-in user's role in the current tenant may do, from the session (their role) and the
 * roles route (its permissions). Only for showing or hiding actions: the server decides every call.
 * `undefined` while either is loading or failed.
 */
export function usePermissions(): ReadonlySet<string> | undefined {
  const session = useQuery(trpc.portal.session.queryOptions({}));
  const roles = useQuery({ ...trpc.portal.roles.queryOptions({}), staleTime: Infinity });
  const role = session.data?.tenants.find((t) => t.tenant_id === currentTenantId())?.role;
  const permissions = roles.data?.roles.find((r) => r.name === role)?.permissions;
  return permissions ? new Set(permissions) : undefined;
}
