import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { client, trpc, type RouterOutputs } from '../../api';
import { Button, ConfirmDialog, DataTable, ErrorBanner, Loading, type Column } from '../../ui';
import { when } from './roles';
import type { useMemberCall } from './useMemberCall';

type Invitation = RouterOutputs['portal']['invitations']['invitations'][number];

/** Pending invitations (managers only), each revocable after a confirmation. */
export function Invitations({ myRole, calls }: { myRole: string | undefined; calls: ReturnType<typeof useMemberCall> }) {
  const invitations = useQuery(trpc.portal.invitations.queryOptions({}));
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const columns: Column<Invitation>[] = [
    { header: 'Email', cell: (i) => i.email },
    { header: 'Role', cell: (i) => i.role },
    { header: 'Sent', cell: (i) => <time dateTime={i.created_at}>{when(i.created_at)}</time> },
    { header: 'Expires', cell: (i) => <time dateTime={i.expires_at}>{when(i.expires_at)}</time> },
    {
      header: 'Actions',
      cell: (i) =>
        i.role === 'owner' && myRole !== 'owner' ? (
          <span className="field-hint">Only owners revoke owner invitations</span>
        ) : (
          <Button onClick={() => setRevoking(i)} aria-label={`Revoke the invitation of ${i.email}`}>
            Revoke
          </Button>
        ),
    },
  ];
  return (
    <section className="card" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      {invitations.isPending ? (
        <Loading label="Loading invitations…" />
      ) : invitations.isError ? (
        <ErrorBanner error={invitations.error} title="Could not load the invitations" />
      ) : (
        <DataTable
          caption="Pending invitations"
          columns={columns}
          rows={invitations.data.invitations}
          rowKey={(i) => i.invitation_id}
          empty="No pending invitations."
        />
      )}
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title={`Revoke the invitation of ${revoking?.email ?? ''}?`}
        description="The invitation stops working; you can invite them again later."
        confirmLabel="Revoke"
        danger
        onConfirm={() => {
          const i = revoking;
          setRevoking(null);
          if (i)
            void calls.run(
              null,
              () => client.portal.cancelInvitation.mutate({ id: i.invitation_id }),
              `The invitation of ${i.email} was revoked.`,
            );
        }}
      />
    </section>
  );
}
