import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { stepUpContext, StepUpCancelled, useStepUp } from '../../ui';
import { trpc } from '../../api';

type Context = { context: ReturnType<typeof stepUpContext> } | undefined;

/**
 * Runs a member-management call, first earning a step-up token when the action needs one (the dialog is
 * `dialogs`), then refreshes members and invitations. Reports what happened as a status text or an error.
 */
export function useMemberCall() {
  const queryClient = useQueryClient();
  const promote = useStepUp('members.promote');
  const remove = useStepUp('members.remove');
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>(null);
  const run = async (stepUp: 'members.promote' | 'members.remove' | null, call: (opts: Context) => Promise<unknown>, done: string) => {
    setError(null);
    setNotice('');
    let opts: Context;
    try {
      if (stepUp) opts = { context: stepUpContext(await (stepUp === 'members.promote' ? promote : remove).requestToken()) };
    } catch (err) {
      if (err instanceof StepUpCancelled) setNotice('Cancelled: nothing changed.');
      else setError(err);
      return false;
    }
    setBusy(true);
    const refresh = () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.portal.members.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.portal.invitations.queryKey() }),
      ]);
    try {
      await call(opts);
      // The lists show the change before the status line says it happened.
      await refresh();
      setNotice(done);
      return true;
    } catch (err) {
      setError(err);
      await refresh();
      return false;
    } finally {
      setBusy(false);
    }
  };
  const dialogs: ReactNode = (
    <>
      {promote.dialog}
      {remove.dialog}
    </>
  );
  return { run, busy, notice, error, dialogs };
}
