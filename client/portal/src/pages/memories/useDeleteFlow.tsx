import { useState, type ReactNode } from 'react';
import { client, queryClient, trpc } from '../../api';
import { ConfirmDialog, ErrorBanner, StepUpCancelled, stepUpContext, useStepUp } from '../../ui';
import { memoriesCount } from './format';
import type { MemoryFilter } from './types';

export type DeleteSelector = { ids: string[] } | { filter: MemoryFilter } | { all: true };

interface Pending {
  selector: DeleteSelector;
  token: string;
  count: number;
  what: string;
  onDone: (() => void) | undefined;
}

/**
 * Deleting memories (one, the selected ones, or all that match the filter): confirm it's you
 * (step-up `data.delete`), count what the selector takes now (preview), ask, then delete batch by
 * batch while the server says there is more, telling screen readers how far it got.
 */
export function useDeleteFlow(): { start: (selector: DeleteSelector, what: string, onDone?: () => void) => void; element: ReactNode } {
  const { requestToken, dialog } = useStepUp('data.delete');
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [confirmError, setConfirmError] = useState<unknown>(null);

  const start = (selector: DeleteSelector, what: string, onDone?: () => void) => {
    setError(null);
    setStatus('');
    void (async () => {
      let token: string;
      try {
        token = await requestToken();
      } catch (err) {
        if (err instanceof StepUpCancelled) setStatus('Deletion cancelled.');
        else setError(err);
        return;
      }
      setStatus('Counting the memories to delete…');
      try {
        const preview = await client.portal.memoriesDelete.mutate({ ...selector, preview: true }, { context: stepUpContext(token) });
        const count = 'would_delete' in preview ? preview.would_delete : 0;
        setStatus('');
        setConfirmError(null);
        setPending({ selector, token, count, what, onDone });
      } catch (err) {
        setStatus('');
        setError(err);
      }
    })();
  };

  const confirm = async () => {
    if (!pending) return;
    setBusy(true);
    setConfirmError(null);
    let deleted = 0;
    try {
      for (;;) {
        const answer = await client.portal.memoriesDelete.mutate({ ...pending.selector }, { context: stepUpContext(pending.token) });
        if (!('deleted' in answer)) break;
        deleted += answer.deleted;
        setStatus(`Deleting… ${deleted} of ${pending.count} done.`);
        if (!answer.has_more || answer.deleted === 0) break;
      }
      setStatus(`Deleted ${memoriesCount(deleted)}.`);
      setPending(null);
      pending.onDone?.();
    } catch (err) {
      setConfirmError(err);
      if (deleted > 0) setStatus(`Deleted ${memoriesCount(deleted)} before an error.`);
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: trpc.portal.memoriesList.pathKey() });
      void queryClient.invalidateQueries({ queryKey: trpc.portal.memorySearch.pathKey() });
    }
  };

  const element = (
    <>
      <p role="status" aria-live="polite" className="mem-status" data-testid="delete-status">
        {status}
      </p>
      <ErrorBanner error={error} title="Could not delete" />
      {dialog}
      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(open) => {
          if (!open && !busy) {
            setPending(null);
            setStatus('Deletion cancelled.');
          }
        }}
        title="Delete memories?"
        description={
          pending
            ? pending.count === 0
              ? `Nothing to delete: ${pending.what} selects no memories now.`
              : `This will delete ${memoriesCount(pending.count)} (${pending.what}) with all their versions. This cannot be undone.`
            : ''
        }
        confirmLabel={pending ? `Delete ${memoriesCount(pending.count)}` : 'Delete'}
        danger
        busy={busy}
        error={confirmError}
        onConfirm={() => void confirm()}
      />
    </>
  );
  return { start, element };
}
