import { useQuery } from '@tanstack/react-query';
import { useCallback, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { client, trpc, type StepUpAction } from '../api';
import { Button } from './Button';
import { Dialog } from './Dialog';
import { ErrorBanner } from './ErrorBanner';
import { TextField } from './TextField';

interface Pending {
  resolve: (token: string) => void;
  reject: (reason: Error) => void;
}

export class StepUpCancelled extends Error {
  constructor() {
    super('step-up cancelled');
  }
}

/** The headers a privileged call sends: pass as `{ context: stepUpContext(token) }` to the client. */
export const stepUpContext = (token: string) => ({ headers: { 'x-step-up-token': token } });

/**
 * Re-authentication before a privileged action: `const { requestToken, dialog } = useStepUp('data.export')`,
 * render `dialog`, then `const token = await requestToken()` (rejects with StepUpCancelled when the user
 * closes the dialog) and send it with the call: `client.x.mutate(input, { context: stepUpContext(token) })`.
 * Password users type their password; SSO users confirm (their recent SSO sign-in qualifies).
 */
export function useStepUp(action: StepUpAction): { requestToken: () => Promise<string>; dialog: ReactNode } {
  const [open, setOpen] = useState(false);
  const pending = useRef<Pending | null>(null);
  const requestToken = useCallback(
    () =>
      new Promise<string>((resolve, reject) => {
        pending.current?.reject(new StepUpCancelled());
        pending.current = { resolve, reject };
        setOpen(true);
      }),
    [],
  );
  const finish = (token: string | null) => {
    const p = pending.current;
    pending.current = null;
    setOpen(false);
    if (token === null) p?.reject(new StepUpCancelled());
    else p?.resolve(token);
  };
  const dialog = open ? <StepUpDialog action={action} onDone={finish} /> : null;
  return { requestToken, dialog };
}

export function StepUpDialog({ action, onDone }: { action: StepUpAction; onDone: (token: string | null) => void }) {
  const session = useQuery(trpc.portal.session.queryOptions({}));
  const sso = session.data?.method === 'sso';
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const grant = await client.portal.stepUp.mutate(sso ? { action } : { action, password });
      onDone(grant.step_up_token);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onDone(null)}
      title="Confirm it's you"
      description={
        sso
          ? `This action (${action}) needs a recent single sign-on. Confirm to continue; if it was too long ago, sign in again.`
          : `This action (${action}) needs your password again.`
      }
    >
      <form onSubmit={(e) => void submit(e)} className="form">
        {!sso && (
          <TextField
            label="Password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={setPassword}
            required
            autoFocus
          />
        )}
        <ErrorBanner error={error} title="Could not confirm" />
        <div className="dialog-footer">
          <Button onClick={() => onDone(null)}>Cancel</Button>
          <Button type="submit" variant="primary" busy={busy}>
            Confirm
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
