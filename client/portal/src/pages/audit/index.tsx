import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { httpStatusOf, trpc } from '../../api';
import { EmptyState, ErrorBanner, Loading, PageHeader } from '../../ui';
import './audit.css';
import { AuditFilterForm } from './AuditFilterForm';
import { AuditTable } from './AuditTable';
import { useAuditUrl } from './useAuditUrl';
import { VerifyPanel } from './VerifyPanel';

const PAGE_SIZE = 25;

/** The Audit log: the tenant's events with filters and paging (kept in the URL), and the hash-chain check. */
export default function AuditPage() {
  const { filters, page, apply, setPage } = useAuditUrl();
  const input = {
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
    ...(filters.type && { type: filters.type }),
    ...(filters.actor && { actor: filters.actor }),
    ...(filters.from && { from: filters.from }),
    ...(filters.to && { to: filters.to }),
  };
  const audit = useQuery({ ...trpc.portal.audit.queryOptions(input), placeholderData: keepPreviousData });

  if (httpStatusOf(audit.error) === 403) {
    return (
      <>
        <PageHeader title="Audit log" />
        <EmptyState title="The audit log is for owners and admins">
          Your role in this tenant does not include reading the audit log (the <code>audit:read</code> permission). Ask an owner or admin if
          you need to know who did what, or request temporary access on the Break-glass page.
        </EmptyState>
      </>
    );
  }
  const filtered = Boolean(filters.type || filters.actor || filters.from || filters.to);
  return (
    <>
      <PageHeader title="Audit log" />
      {!audit.isPending && <VerifyPanel />}
      <AuditFilterForm key={JSON.stringify(filters)} applied={filters} onApply={apply} />
      <ErrorBanner error={audit.error} title="Could not load the audit log" />
      {audit.isPending && <Loading label="Loading audit events…" />}
      {audit.data && (
        <AuditTable
          events={audit.data.events}
          total={audit.data.total}
          page={page}
          pageSize={PAGE_SIZE}
          onPage={setPage}
          filtered={filtered}
        />
      )}
    </>
  );
}
