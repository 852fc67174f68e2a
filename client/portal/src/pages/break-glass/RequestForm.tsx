import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { client, trpc } from '../../api';
import { Button, ErrorBanner, TextField } from '../../ui';

/** Ask for time-boxed emergency elevation: a reason (audited) and how long it lasts once approved. */
export function RequestForm() {
  const queryClient = useQueryClient();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [minutes, setMinutes] = useState('60');
  const request = useMutation({
    mutationFn: (input: { reason: string; duration_minutes: number }) => client.portal.breakGlassRequest.mutate(input),
    onSuccess: async () => {
      setReason('');
      await queryClient.invalidateQueries({ queryKey: trpc.portal.breakGlassList.queryKey() });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    request.mutate({ reason: reason.trim(), duration_minutes: Number(minutes) });
  };
  return (
    <section className="card" aria-labelledby="bg-request-heading">
      <h2 id="bg-request-heading">Request emergency access</h2>
      <form className="form" onSubmit={submit}>
        <div className="field">
          <label htmlFor={reasonId}>Reason</label>
          <textarea
            id={reasonId}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            required
            maxLength={2000}
            rows={3}
            aria-describedby={`${reasonId}-hint`}
          />
          <p id={`${reasonId}-hint`} className="field-hint">
            Recorded in the audit log. Another owner or admin must approve it.
          </p>
        </div>
        <TextField
          label="Duration (minutes)"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={minutes}
          onChange={setMinutes}
          required
          hint="How long the elevated access lasts once approved; the server caps it."
        />
        <div>
          <Button type="submit" variant="primary" busy={request.isPending}>
            Send request
          </Button>
        </div>
      </form>
      <p role="status">{request.isSuccess ? `Request sent: ${request.data.status}, waiting for approval.` : ''}</p>
      <ErrorBanner error={request.error} title="Could not send the request" />
    </section>
  );
}
