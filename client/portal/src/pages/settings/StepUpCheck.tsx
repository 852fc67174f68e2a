import { useState } from 'react';
import { Button, StepUpCancelled, useStepUp } from '../../ui';

/**
 * Privileged actions (export, deletion, promotions) ask the user to confirm it's them. This card runs
 * the same confirmation on demand, so a user can check their password (or SSO recency) works before
 * they need it; the token it earns is not used.
 */
export function StepUpCheck() {
  const { requestToken, dialog } = useStepUp('data.export');
  const [result, setResult] = useState<'idle' | 'confirmed' | 'cancelled'>('idle');
  const check = () => {
    setResult('idle');
    requestToken().then(
      () => setResult('confirmed'),
      (err: unknown) => setResult(err instanceof StepUpCancelled ? 'cancelled' : 'idle'),
    );
  };
  return (
    <section className="card" aria-labelledby="stepup-heading">
      <h2 id="stepup-heading">Confirming it&apos;s you</h2>
      <p>Exports, deletions and role promotions ask you to confirm your identity again. You can check that it works here.</p>
      <Button onClick={check}>Check now</Button>
      <p role="status">
        {result === 'confirmed' ? 'Confirmed: you can perform privileged actions.' : result === 'cancelled' ? 'Check cancelled.' : ''}
      </p>
      {dialog}
    </section>
  );
}
