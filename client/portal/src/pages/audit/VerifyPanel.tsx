import { useQuery } from '@tanstack/react-query';
import { trpc } from '../../api';
import { Button, ErrorBanner } from '../../ui';

/**
 * The hash-chain check (`portal.auditVerify`): every event's hash recomputed from its content and the
 * previous hash, so a changed, missing or inserted event shows as the first sequence number that fails.
 */
export function VerifyPanel() {
  const verify = useQuery({ ...trpc.portal.auditVerify.queryOptions({}), staleTime: 0 });
  const result = verify.data;
  const checking = verify.isFetching;
  return (
    <section
      className={`card audit-verify ${result ? (result.ok ? 'audit-verify-ok' : 'audit-verify-broken') : ''}`}
      aria-labelledby="verify-heading"
    >
      <h2 id="verify-heading">Hash-chain verification</h2>
      <div role="status" aria-live="polite" data-testid="audit-verification">
        {checking && 'Verifying the chain…'}
        {!checking && result?.ok && (
          <p>
            <strong>Verified.</strong> All {result.checked} event{result.checked === 1 ? '' : 's'} match their hashes: nothing was changed,
            removed or inserted.
          </p>
        )}
        {!checking && result && !result.ok && (
          <p>
            <strong>Broken at event #{result.broken_at ?? '?'}.</strong> {result.reason ?? 'The chain does not match.'} ({result.checked}{' '}
            event{result.checked === 1 ? '' : 's'} verified before it.)
          </p>
        )}
        {!checking && result && verify.dataUpdatedAt > 0 && (
          <p className="audit-muted">Checked at {new Date(verify.dataUpdatedAt).toLocaleTimeString()}.</p>
        )}
      </div>
      <ErrorBanner error={verify.error} title="Could not verify the chain" />
      <Button busy={checking} onClick={() => void verify.refetch()}>
        Verify again
      </Button>
    </section>
  );
}
