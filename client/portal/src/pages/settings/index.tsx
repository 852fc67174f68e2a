import { useQuery } from '@tanstack/react-query';
import { currentTenantId, trpc } from '../../api';
import { ErrorBanner, Loading, PageHeader } from '../../ui';
import { StepUpCheck } from './StepUpCheck';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The signed-in account, the current tenant and role, and when this session ends. */
export default function SettingsPage() {
  const session = useQuery(trpc.portal.session.queryOptions({}));
  if (session.isPending) return <Loading />;
  if (session.isError) return <ErrorBanner error={session.error} />;
  const s = session.data;
  const tenant = s.tenants.find((t) => t.tenant_id === currentTenantId());
  return (
    <>
      <PageHeader title="Settings" />
      <section className="card" aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <dl className="facts">
          <dt>Email</dt>
          <dd>{s.email}</dd>
          <dt>Name</dt>
          <dd>{s.name ?? '—'}</dd>
          <dt>User id</dt>
          <dd>
            <code>{s.user_id}</code>
          </dd>
        </dl>
      </section>
      {tenant && (
        <section className="card" aria-labelledby="tenant-heading">
          <h2 id="tenant-heading">Tenant</h2>
          <dl className="facts">
            <dt>Name</dt>
            <dd>{tenant.name}</dd>
            <dt>Your role</dt>
            <dd>{tenant.role}</dd>
            <dt>Plan</dt>
            <dd>{tenant.plan}</dd>
            <dt>Status</dt>
            <dd>{tenant.status}</dd>
            <dt>Tenant id</dt>
            <dd>
              <code>{tenant.tenant_id}</code>
            </dd>
          </dl>
        </section>
      )}
      <section className="card" aria-labelledby="session-heading">
        <h2 id="session-heading">Session</h2>
        <dl className="facts">
          <dt>Signed in with</dt>
          <dd>{s.method === 'sso' ? 'Single sign-on' : 'Password'}</dd>
          <dt>Session expires</dt>
          <dd>
            <time dateTime={s.expires_at} data-testid="session-expiry">
              {when(s.expires_at)}
            </time>
          </dd>
        </dl>
      </section>
      <StepUpCheck />
    </>
  );
}
