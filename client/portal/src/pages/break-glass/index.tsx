import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { trpc } from '../../api';
import { ErrorBanner, Loading, PageHeader, usePermissions } from '../../ui';
import { RequestForm } from './RequestForm';
import { RequestsTable } from './RequestsTable';

/**
 * Break-glass: the tenant's emergency-elevation requests (owners and admins see all, others their own),
 * a request form, and approve/deny for approvers other than the requester.
 */
export default function BreakGlassPage() {
  const access = usePermissions();
  const requests = useQuery(trpc.portal.breakGlassList.queryOptions({}));
  const members = useQuery(trpc.portal.members.queryOptions({}));
  const [notice, setNotice] = useState('');
  const emails = new Map((members.data?.members ?? []).map((m) => [m.user_id, m.email]));
  const nameOf = (userId: string | null) => {
    if (userId === null) return '—';
    const email = emails.get(userId) ?? userId;
    return userId === access.userId ? `${email} (you)` : email;
  };
  return (
    <>
      <PageHeader title="Break-glass" />
      <p className="field-hint">Time-boxed emergency elevation. Each request, approval and denial is written to the audit log.</p>
      <p role="status" className="mb-notice">
        {notice}
      </p>
      <section className="card" aria-labelledby="bg-list-heading">
        <h2 id="bg-list-heading">Requests</h2>
        {requests.isPending ? (
          <Loading label="Loading requests…" />
        ) : requests.isError ? (
          <ErrorBanner error={requests.error} title="Could not load the requests" />
        ) : (
          <RequestsTable
            requests={requests.data.requests}
            nameOf={nameOf}
            myUserId={access.userId}
            canApprove={access.can('break_glass:approve')}
            onNotice={setNotice}
          />
        )}
      </section>
      {access.can('break_glass:request') ? (
        <RequestForm />
      ) : (
        !access.isPending && <p className="field-hint">Your role ({access.role}) cannot request break-glass access.</p>
      )}
    </>
  );
}
