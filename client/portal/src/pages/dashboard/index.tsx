import { useQuery } from '@tanstack/react-query';
import { trpc } from '../../api';
import { ErrorBanner, Loading, PageHeader, usePermissions } from '../../ui';
import './dashboard.css';
import { OnboardingChecklist } from './OnboardingChecklist';
import { QuotaBars } from './QuotaBars';
import { RecentAudit } from './RecentAudit';
import { TotalsCards } from './TotalsCards';
import { UsageChart } from './UsageChart';

/** The tenant at a glance: this period's totals and quotas, 30 days of usage, recent activity, first steps. */
export default function DashboardPage() {
  const dashboard = useQuery(trpc.portal.dashboard.queryOptions({}));
  const perms = usePermissions();
  return (
    <>
      <PageHeader title="Dashboard" />
      {dashboard.isPending ? (
        <Loading label="Loading the dashboard…" />
      ) : dashboard.isError ? (
        <ErrorBanner error={dashboard.error} title="Could not load the dashboard" />
      ) : (
        <div className="dash">
          <TotalsCards data={dashboard.data} />
          {!dashboard.data.onboarding_status.completed_at && (
            <OnboardingChecklist status={dashboard.data.onboarding_status} canComplete={perms.can('memories:write')} />
          )}
          <div className="dash-grid-2">
            <QuotaBars data={dashboard.data} />
            <UsageChart days={dashboard.data.usage_history} />
          </div>
          <RecentAudit events={dashboard.data.recent_audit_events} canRead={perms.can('audit:read')} />
          {dashboard.data.onboarding_status.completed_at && (
            <OnboardingChecklist status={dashboard.data.onboarding_status} canComplete={false} />
          )}
        </div>
      )}
    </>
  );
}
