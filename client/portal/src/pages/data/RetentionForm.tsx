import { useState, type FormEvent } from 'react';
import { client, queryClient, trpc, type RouterOutputs } from '../../api';
import { Button, ErrorBanner, StepUpCancelled, stepUpContext, useStepUp } from '../../ui';
import { DaysField } from './DaysField';
import { DELETED_EXPLANATION, SUPERSEDED_EXPLANATION } from './retentionText';
import { draftOf, parseDays, type DaysDraft } from './retentionValue';

type Retention = RouterOutputs['portal']['retention'];

/** The retention form (owners and admins): both settings saved together after a `retention.override` step-up. */
export function RetentionForm({ current }: { current: Retention }) {
  const [superseded, setSuperseded] = useState<DaysDraft>(() => draftOf(current.superseded_days));
  const [deleted, setDeleted] = useState<DaysDraft>(() => draftOf(current.deleted_days));
  const [showErrors, setShowErrors] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const { requestToken, dialog } = useStepUp('retention.override');

  const supersededValue = parseDays(superseded);
  const deletedValue = parseDays(deleted);
  const errorOf = (v: ReturnType<typeof parseDays>) => (showErrors && 'error' in v ? v.error : undefined);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setStatus('');
    setError(null);
    if ('error' in supersededValue || 'error' in deletedValue) {
      setShowErrors(true);
      return;
    }
    setBusy(true);
    try {
      const token = await requestToken();
      const saved = await client.portal.setRetention.mutate(
        { superseded_days: supersededValue.value, deleted_days: deletedValue.value },
        { context: stepUpContext(token) },
      );
      queryClient.setQueryData(trpc.portal.retention.queryKey({}), saved);
      setShowErrors(false);
      setStatus('Retention settings saved.');
    } catch (err) {
      if (err instanceof StepUpCancelled) setStatus('Not saved: the confirmation was cancelled.');
      else setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form" onSubmit={(e) => void save(e)} noValidate aria-labelledby="retention-form-heading">
      <h3 id="retention-form-heading">Change retention</h3>
      <DaysField
        legend="Replaced memory versions"
        explanation={SUPERSEDED_EXPLANATION}
        draft={superseded}
        error={errorOf(supersededValue)}
        onChange={setSuperseded}
      />
      <DaysField
        legend="Deleted items"
        explanation={DELETED_EXPLANATION}
        draft={deleted}
        error={errorOf(deletedValue)}
        onChange={setDeleted}
      />
      <ErrorBanner error={error} title="Retention was not saved" />
      <div className="data-actions">
        <Button type="submit" variant="primary" busy={busy}>
          Save retention
        </Button>
      </div>
      <p role="status" aria-live="polite" data-testid="retention-status">
        {status}
      </p>
      {dialog}
    </form>
  );
}
