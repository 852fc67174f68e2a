import { useId } from 'react';
import type { Dashboard } from './types';
import { formatBytes, formatCount } from './format';

interface Quota {
  label: string;
  used: number;
  limit: number | null;
  format: (n: number) => string;
}

/** One quota: a labelled progress bar with its numbers in text, or "unlimited" when the plan has no limit. */
function QuotaBar({ quota }: { quota: Quota }) {
  const id = useId();
  const { label, used, limit, format } = quota;
  if (limit === null) {
    return (
      <li className="dash-quota">
        <span id={id} className="dash-quota-label">
          {label}
        </span>
        <span className="dash-quota-text">{format(used)} used · unlimited</span>
      </li>
    );
  }
  const percent = limit > 0 ? Math.round((used / limit) * 1000) / 10 : 100;
  const state = percent >= 100 ? 'over' : percent >= 80 ? 'near' : 'ok';
  const text = `${format(used)} of ${format(limit)} (${percent}%)${state === 'over' ? ' — limit reached' : state === 'near' ? ' — nearing the limit' : ''}`;
  return (
    <li className="dash-quota">
      <span id={id} className="dash-quota-label">
        {label}
      </span>
      <div
        className={`dash-bar dash-bar-${state}`}
        role="progressbar"
        aria-labelledby={id}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={Math.min(used, limit)}
        aria-valuetext={text}
      >
        <div className="dash-bar-fill" style={{ width: `${Math.min(100, percent)}%` }} />
      </div>
      <span className="dash-quota-text">{text}</span>
    </li>
  );
}

/** The plan's quotas this period: writes, reads, searches and storage. */
export function QuotaBars({ data }: { data: Dashboard }) {
  const q = data.quota_status;
  const quotas: Quota[] = [
    { label: 'Writes', used: q.writes_used, limit: q.writes_limit, format: formatCount },
    { label: 'Reads', used: q.reads_used, limit: q.reads_limit, format: formatCount },
    { label: 'Searches', used: q.searches_used, limit: q.searches_limit, format: formatCount },
    { label: 'Storage', used: q.storage_used_bytes, limit: q.storage_limit_bytes, format: formatBytes },
  ];
  return (
    <section aria-labelledby="quota-heading" className="card dash-section">
      <h2 id="quota-heading">Quotas</h2>
      <p className="dash-muted">
        Plan <strong>{data.current_plan}</strong>: highest share used {q.used_percentage}%.
      </p>
      <ul className="dash-quotas">
        {quotas.map((quota) => (
          <QuotaBar key={quota.label} quota={quota} />
        ))}
      </ul>
    </section>
  );
}
