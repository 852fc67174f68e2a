import { useQuery } from '@tanstack/react-query';
import { currentTenantId, trpc } from '../api';

export interface Permissions {
  /** The user's role in the current tenant (undefined while loading). */
  role: string | undefined;
  /** The session's user id. */
  userId: string | undefined;
  /** Whether the role carries `permission` by itself; false while loading. The server stays the authority. */
  can: (permission: string) => boolean;
  isPending: boolean;
}

/**
 * The signed-in user's role in the URL's tenant and what it may do, for role-aware UI: the session
 * gives the role, `portal.roles` its permissions (a break-glass grant is not reflected; the server
 * decides every call).
 */
export function usePermissions(): Permissions {
  const session = useQuery(trpc.portal.session.queryOptions({}));
  const roles = useQuery({ ...trpc.portal.roles.queryOptions({}), staleTime: Infinity });
  const role = session.data?.tenants.find((t) => t.tenant_id === currentTenantId())?.role;
  const granted = new Set(roles.data?.roles.find((r) => r.name === role)?.permissions ?? []);
  return {
    role,
    userId: session.data?.user_id,
    can: (permission) => granted.has(permission as never),
    isPending: session.isPending || roles.isPending,
  };
}
