import { PagePlaceholder } from '../../ui';

/** Placeholder: replace this folder with the Dashboard page. */
export default function DashboardPage() {
  return (
    <PagePlaceholder title="Dashboard" purpose="Usage against your plan's quotas, recent activity and the next steps to get started." />
  );
}
