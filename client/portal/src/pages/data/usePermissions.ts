import { useQuery } from '@tanstack/react-query';
import { currentTenantId, trpc } from '../../api';

/**
 * What the signed-in user may do in the current tenant, to show or hide actions (the server decides
 * every call): their role's permissions (session + roles route), plus — while an approved break-glass
 * grant of theirs runs — the admin role's. The server withholds a few permissions from grants
 * (managing members and keys); this page asks only about data:export and retention:override, which a
 * grant does carry. `undefined` while loading.
 */
export function usePermissions(): ReadonlySet<string> | undefined {
  const session = useQuery(trpc.portal.session.queryOptions({}));
  const roles = useQuery({ ...trpc.portal.roles.queryOptions({}), staleTime: Infinity });
  const grants = useQuery(trpc.portal.breakGlassList.queryOptions({}));
  const userId = session.data?.user_id;
  const role = session.data?.tenants.find((t) => t.tenant_id === currentTenantId())?.role;
  const own = roles.data?.roles.find((r) => r.name === role)?.permissions;
  if (!own) return undefined;
  // Judged at the time the list was fetched (render stays pure); the server has the last word anyway.
  const now = grants.dataUpdatedAt;
  const elevated = grants.data?.requests.some(
    (r) => r.requester_id === userId && r.status === 'approved' && r.expires_at !== null && Date.parse(r.expires_at) > now,
  );
  const granted = elevated ? (roles.data?.roles.find((r) => r.name === 'admin')?.permissions ?? []) : [];
  return new Set([...own, ...granted]);
}
