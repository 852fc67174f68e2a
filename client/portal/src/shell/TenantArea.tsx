import { Redirect } from 'wouter';
import { httpStatusOf, setTenantId } from '../api';
import ForbiddenPage from '../pages/forbidden';
import { DEFAULT_PAGE, pages } from '../pages/registry';
import { homeOf, useSession } from '../session';
import { EmptyState, ErrorBanner, Loading } from '../ui';
import { Shell } from './Shell';

/**
 * `/portal/t/<tenantId>/<page>`: the tenant comes from the URL (so two tabs can show two tenants) and
 * every call sends it as X-Tenant-ID. A tenant the user is not a member of gets the forbidden page.
 */
export function TenantArea({ tenantId, page = DEFAULT_PAGE }: { tenantId: string; page?: string | undefined }) {
  const session = useSession();
  if (session.isPending) return <Loading />;
  if (session.isError) {
    if (httpStatusOf(session.error) === 401)
      return <Redirect to={`/sign-in?next=${encodeURIComponent(`/t/${tenantId}/${page}`)}`} replace />;
    return <ErrorBanner error={session.error} />;
  }
  const member = session.data.tenants.some((t) => t.tenant_id === tenantId);
  if (!member) return <ForbiddenPage tenantId={tenantId} homeHref={homeOf(session.data)} />;
  // Set before the page renders, so its first call already goes to this tenant.
  setTenantId(tenantId);
  const entry = pages.find((p) => p.slug === page);
  const Page = entry?.component;
  return (
    <Shell session={session.data} tenantId={tenantId} page={page}>
      {Page ? <Page /> : <EmptyState title="No such page">There is no page called “{page}”.</EmptyState>}
    </Shell>
  );
}
