import { useQuery } from '@tanstack/react-query';
import { currentTenantId, trpc } from '../../api';

/**
 * What the user's role in this tenant may do, from the session's role and the roles route. Only for
 * showing or hiding actions: the server decides.
 */
export function usePermissions() {
  const session = useQuery(trpc.portal.session.queryOptions({}));
  const roles = useQuery(trpc.portal.roles.queryOptions({}));
  const role = session.data?.tenants.find((t) => t.tenant_id === currentTenantId())?.role;
  const permissions = roles.data?.roles.find((r) => r.name === role)?.permissions ?? [];
  const has = (p: string) => (permissions as readonly string[]).includes(p);
  return { canWrite: has('memories:write'), canDelete: has('data:delete') };
}
