import type { Dashboard } from './types';
import { formatBytes, formatCount, formatDate } from './format';

/** The period's headline numbers, one card each; every value has its label in text. */
export function TotalsCards({ data }: { data: Dashboard }) {
  const totals: { label: string; value: string; raw: string | number; testId: string }[] = [
    { label: 'Memories', value: formatCount(data.total_memories), raw: data.total_memories, testId: 'total-memories' },
    { label: 'Writes this period', value: formatCount(data.writes_this_period), raw: data.writes_this_period, testId: 'total-writes' },
    { label: 'Reads this period', value: formatCount(data.reads_this_period), raw: data.reads_this_period, testId: 'total-reads' },
    {
      label: 'Searches this period',
      value: formatCount(data.searches_this_period),
      raw: data.searches_this_period,
      testId: 'total-searches',
    },
    { label: 'Storage used', value: formatBytes(data.storage_used), raw: data.storage_used, testId: 'total-storage' },
    { label: 'Plan', value: data.current_plan, raw: data.current_plan, testId: 'total-plan' },
  ];
  return (
    <section aria-labelledby="totals-heading" className="dash-section">
      <h2 id="totals-heading">
        This period{' '}
        <span className="dash-muted">
          ({formatDate(data.period_starts_at)} – {formatDate(data.period_ends_at)})
        </span>
      </h2>
      <dl className="dash-totals">
        {totals.map((t) => (
          <div key={t.testId} className="dash-total card">
            <dt>{t.label}</dt>
            <dd data-testid={t.testId} data-value={t.raw}>
              {t.value}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
