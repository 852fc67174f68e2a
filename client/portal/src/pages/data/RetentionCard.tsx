import { useQuery } from '@tanstack/react-query';
import { trpc } from '../../api';
import { ErrorBanner, Loading } from '../../ui';
import { RetentionForm } from './RetentionForm';
import { DELETED_EXPLANATION, JOB_EXPLANATION, SUPERSEDED_EXPLANATION } from './retentionText';
import { describeDays } from './retentionValue';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "Retention": the tenant's current settings (every role), and the form to change them (owners, admins). */
export function RetentionCard({ allowed }: { allowed: boolean | undefined }) {
  const retention = useQuery(trpc.portal.retention.queryOptions({}));
  const session = useQuery(trpc.portal.session.queryOptions({}));
  return (
    <section className="card" aria-labelledby="retention-heading">
      <h2 id="retention-heading">Retention</h2>
      <p>{JOB_EXPLANATION}</p>
      {retention.isPending && <Loading label="Loading retention settings…" />}
      <ErrorBanner error={retention.error} title="Could not load the retention settings" />
      {retention.data && (
        <>
          <dl className="facts" data-testid="retention-current">
            <dt>Replaced memory versions</dt>
            <dd>{describeDays(retention.data.superseded_days)}</dd>
            <dt>Deleted items</dt>
            <dd>{describeDays(retention.data.deleted_days)}</dd>
            <dt>Last changed</dt>
            <dd>
              {retention.data.updated_at ? (
                <>
                  <time dateTime={retention.data.updated_at}>{when(retention.data.updated_at)}</time>
                  {retention.data.updated_by &&
                    (retention.data.updated_by === session.data?.user_id ? ' by you' : ` by user ${retention.data.updated_by}`)}
                </>
              ) : (
                'Never: everything is kept'
              )}
            </dd>
          </dl>
          {allowed === true && <RetentionForm current={retention.data} />}
          {allowed === false && (
            <>
              <p className="data-note">Only owners and admins can change retention.</p>
              <h3>What the settings mean</h3>
              <p>
                <strong>Replaced memory versions.</strong> {SUPERSEDED_EXPLANATION}
              </p>
              <p>
                <strong>Deleted items.</strong> {DELETED_EXPLANATION}
              </p>
            </>
          )}
        </>
      )}
    </section>
  );
}
