import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { client, trpc } from '../../api';
import { Button, ErrorBanner } from '../../ui';

/**
 * "Enrich now": starts a run (the answer says ENRICHING) and refreshes the object and its log. Disabled,
 * with the reason beside it, for an object marked do_not_enrich or a role without knowledge:write.
 */
export function EnrichButton({
  type,
  id,
  doNotEnrich,
  canWrite,
  status,
}: {
  type: string;
  id: string;
  doNotEnrich: boolean;
  canWrite: boolean;
  /** The object's current status, to say when the run this button started has ended. */
  status: string;
}) {
  const queryClient = useQueryClient();
  const reasonId = useId();
  const enrich = useMutation({
    mutationFn: () => client.portal.knowledgeEnrich.mutate({ type, id }),
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.portal.knowledgeGet.queryKey({ type, id }) }),
        queryClient.invalidateQueries({ queryKey: trpc.portal.knowledgeLog.pathKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.portal.knowledgeList.pathKey() }),
      ]),
  });
  const reason = doNotEnrich
    ? 'This object is marked do_not_enrich: it is never enriched.'
    : !canWrite
      ? 'Your role cannot start enrichment (it needs knowledge:write).'
      : undefined;
  return (
    <div className="kn-enrich">
      <Button
        variant="primary"
        disabled={reason !== undefined}
        busy={enrich.isPending}
        aria-describedby={reason ? reasonId : undefined}
        onClick={() => enrich.mutate()}
      >
        Enrich now
      </Button>
      {reason && (
        <p id={reasonId} className="field-hint">
          {reason}
        </p>
      )}
      <p role="status" className="kn-enrich-status">
        {enrich.isSuccess
          ? `Enrichment started: ${enrich.data.status}.${status === 'ENRICHING' ? '' : ` Finished: the object is ${status}.`}`
          : ''}
      </p>
      <ErrorBanner error={enrich.error} title="Could not start enrichment" />
    </div>
  );
}
