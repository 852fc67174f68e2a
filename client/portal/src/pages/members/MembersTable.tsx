import { useState } from 'react';
import { client, type RouterOutputs } from '../../api';
import { Button, ConfirmDialog, DataTable, type Column } from '../../ui';
import { RoleSelect } from './RoleSelect';
import { assignableRoles, isPromotion, when } from './roles';
import type { useMemberCall } from './useMemberCall';

type Member = RouterOutputs['portal']['members']['members'][number];

/**
 * The tenant's members. Managers change a role inline (a select per row) and remove with a confirmation;
 * everyone else reads. Admins cannot touch owners.
 */
export function MembersTable({
  members,
  myRole,
  myUserId,
  canManage,
  calls,
}: {
  members: readonly Member[];
  myRole: string | undefined;
  myUserId: string | undefined;
  canManage: boolean;
  calls: ReturnType<typeof useMemberCall>;
}) {
  const [removing, setRemoving] = useState<Member | null>(null);
  const mayTouch = (m: Member) => canManage && (m.role !== 'owner' || myRole === 'owner');
  const who = (m: Member) => (m.user_id === myUserId ? `${m.email} (you)` : m.email);
  const columns: Column<Member>[] = [
    { header: 'Email', cell: (m) => <span className="mb-email">{who(m)}</span> },
    { header: 'Name', cell: (m) => m.name ?? '—' },
    {
      header: 'Role',
      cell: (m) =>
        mayTouch(m) ? (
          <RoleSelect
            label={`Role of ${m.email}`}
            value={m.role}
            roles={assignableRoles(myRole)}
            disabled={calls.busy}
            onChange={(role) =>
              void calls.run(
                isPromotion(role) ? 'members.promote' : null,
                (opts) => client.portal.changeRole.mutate({ user_id: m.user_id, role }, opts),
                `${m.email} is now ${role}.`,
              )
            }
          />
        ) : (
          m.role
        ),
    },
    { header: 'Joined', cell: (m) => <time dateTime={m.joined_at}>{when(m.joined_at)}</time> },
  ];
  if (canManage)
    columns.push({
      header: 'Actions',
      cell: (m) =>
        mayTouch(m) ? (
          <Button
            variant="danger"
            onClick={() => setRemoving(m)}
            aria-label={m.user_id === myUserId ? 'Leave this tenant' : `Remove ${m.email}`}
          >
            {m.user_id === myUserId ? 'Leave' : 'Remove'}
          </Button>
        ) : (
          <span className="field-hint">Only owners change owners</span>
        ),
    });
  return (
    <>
      <DataTable caption="Members" columns={columns} rows={members} rowKey={(m) => m.user_id} empty="No members." />
      <ConfirmDialog
        open={removing !== null}
        onOpenChange={(open) => !open && setRemoving(null)}
        title={removing?.user_id === myUserId ? 'Leave this tenant?' : `Remove ${removing?.email ?? ''}?`}
        description="They lose access to this tenant at once, and the API keys they hold the current secret of are revoked. You will be asked to confirm it's you."
        confirmLabel="Remove"
        danger
        onConfirm={() => {
          const m = removing;
          setRemoving(null);
          if (m)
            void calls.run(
              'members.remove',
              (opts) => client.portal.removeMember.mutate({ user_id: m.user_id }, opts),
              `${m.email} was removed.`,
            );
        }}
      />
    </>
  );
}
