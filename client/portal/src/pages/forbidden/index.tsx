import { Link } from 'wouter';
import { EmptyState, PageHeader } from '../../ui';

/** The URL names a tenant the signed-in user is not a member of (the server answers 403). */
export default function ForbiddenPage({ tenantId, homeHref }: { tenantId: string; homeHref: string }) {
  return (
    <main id="main" className="center-page">
      <PageHeader title="No access to this tenant" />
      <EmptyState
        title="You are not a member of this tenant"
        action={
          <Link href={homeHref} className="btn btn-primary">
            Go to your tenant
          </Link>
        }
      >
        <p>
          The tenant <code>{tenantId}</code> does not exist or you have no role in it. Ask one of its owners for an invitation.
        </p>
      </EmptyState>
    </main>
  );
}
