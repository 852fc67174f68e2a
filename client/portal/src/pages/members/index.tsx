import { useQuery } from '@tanstack/react-query';
import { trpc } from '../../api';
import { ErrorBanner, Loading, PageHeader, usePermissions } from '../../ui';
import { InviteForm } from './InviteForm';
import { Invitations } from './Invitations';
import { MembersTable } from './MembersTable';
import { RolesPanel } from './RolesPanel';
import { useMemberCall } from './useMemberCall';

/**
 * Members and roles. Owners and admins invite, change roles, remove and revoke invitations (promotions
 * and removals ask for a step-up); every other role sees a read-only list.
 */
export default function MembersPage() {
  const access = usePermissions();
  const members = useQuery(trpc.portal.members.queryOptions({}));
  const calls = useMemberCall();
  const canManage = access.can('members:manage');
  return (
    <>
      <PageHeader title="Members" />
      <p role="status" className="mb-notice">
        {calls.notice}
      </p>
      <ErrorBanner error={calls.error} title="That did not work" />
      {!access.isPending && !canManage && <p className="field-hint">Your role ({access.role}) can see the members but not change them.</p>}
      <section className="card" aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        {members.isPending ? (
          <Loading label="Loading members…" />
        ) : members.isError ? (
          <ErrorBanner error={members.error} title="Could not load the members" />
        ) : (
          <MembersTable members={members.data.members} myRole={access.role} myUserId={access.userId} canManage={canManage} calls={calls} />
        )}
      </section>
      {canManage && <InviteForm myRole={access.role} calls={calls} />}
      {canManage && <Invitations myRole={access.role} calls={calls} />}
      <RolesPanel />
      {calls.dialogs}
    </>
  );
}
