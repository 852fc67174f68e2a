import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { client, trpc, type RouterOutputs } from '../../api';
import { Button, ConfirmDialog, DataTable, type Column } from '../../ui';
import { minutesText, when } from './format';

type BreakGlassRequest = RouterOutputs['portal']['breakGlassList']['requests'][number];
type Decision = { request: BreakGlassRequest; verb: 'approve' | 'deny' };

/**
 * The requests the caller may see, newest first, with approve/deny for approvers on pending requests
 * other than their own (each after a confirmation).
 */
export function RequestsTable({
  requests,
  nameOf,
  myUserId,
  canApprove,
  onNotice,
}: {
  requests: readonly BreakGlassRequest[];
  nameOf: (userId: string | null) => string;
  myUserId: string | undefined;
  canApprove: boolean;
  onNotice: (text: string) => void;
}) {
  const queryClient = useQueryClient();
  const [deciding, setDeciding] = useState<Decision | null>(null);
  const decide = useMutation({
    mutationFn: ({ request, verb }: Decision) =>
      verb === 'approve'
        ? client.portal.breakGlassApprove.mutate({ id: request.id })
        : client.portal.breakGlassDeny.mutate({ id: request.id }),
    onSuccess: async (r) => {
      setDeciding(null);
      onNotice(`The request of ${nameOf(r.requester_id)} is ${r.status}.`);
      await queryClient.invalidateQueries({ queryKey: trpc.portal.breakGlassList.queryKey() });
    },
  });
  const rows = [...requests].sort((a, b) => b.created_at.localeCompare(a.created_at));
  const columns: Column<BreakGlassRequest>[] = [
    { header: 'Requested by', cell: (r) => nameOf(r.requester_id) },
    { header: 'Reason', cell: (r) => <span className="bg-reason">{r.reason}</span> },
    { header: 'Duration', cell: (r) => minutesText(r.duration_minutes) },
    { header: 'Status', cell: (r) => <span className="kn-status">{r.status}</span> },
    { header: 'Requested', cell: (r) => <time dateTime={r.created_at}>{when(r.created_at)}</time> },
    { header: 'Decided by', cell: (r) => (r.decided_by ? nameOf(r.decided_by) : '—') },
    { header: 'Expires', cell: (r) => (r.expires_at ? <time dateTime={r.expires_at}>{when(r.expires_at)}</time> : '—') },
  ];
  if (canApprove)
    columns.push({
      header: 'Decision',
      cell: (r) =>
        r.status !== 'pending' ? (
          '—'
        ) : r.requester_id === myUserId ? (
          <span className="field-hint">Your own request: another approver decides</span>
        ) : (
          <div className="bg-actions">
            <Button
              variant="primary"
              onClick={() => setDeciding({ request: r, verb: 'approve' })}
              aria-label={`Approve the request of ${nameOf(r.requester_id)}`}
            >
              Approve
            </Button>
            <Button
              variant="danger"
              onClick={() => setDeciding({ request: r, verb: 'deny' })}
              aria-label={`Deny the request of ${nameOf(r.requester_id)}`}
            >
              Deny
            </Button>
          </div>
        ),
    });
  return (
    <>
      <DataTable
        caption="Break-glass requests, newest first"
        columns={columns}
        rows={rows}
        rowKey={(r) => r.id}
        empty="No break-glass requests."
      />
      <ConfirmDialog
        open={deciding !== null}
        onOpenChange={(open) => {
          if (!open) {
            setDeciding(null);
            decide.reset();
          }
        }}
        title={
          deciding ? `${deciding.verb === 'approve' ? 'Approve' : 'Deny'} the request of ${nameOf(deciding.request.requester_id)}?` : ''
        }
        description={
          deciding?.verb === 'approve'
            ? `They get elevated access for ${minutesText(deciding.request.duration_minutes)}. Reason given: ${deciding.request.reason}`
            : 'They do not get elevated access. The decision is audited.'
        }
        confirmLabel={deciding?.verb === 'approve' ? 'Approve' : 'Deny'}
        danger={deciding?.verb === 'deny'}
        busy={decide.isPending}
        error={decide.error}
        onConfirm={() => deciding && decide.mutate(deciding)}
      />
    </>
  );
}
