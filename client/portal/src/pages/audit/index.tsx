import { PagePlaceholder } from '../../ui';

/** Placeholder: replace this folder with the Audit log page. */
export default function AuditPage() {
  return <PagePlaceholder title="Audit log" purpose="Who did what in this tenant, filterable by action, user and date." />;
}
