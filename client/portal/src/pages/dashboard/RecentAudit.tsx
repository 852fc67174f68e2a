import { Link } from 'wouter';
import { currentTenantId } from '../../api';
import { DataTable, type Column } from '../../ui';
import type { AuditEvent } from './types';
import { formatDateTime } from './format';

const columns: Column<AuditEvent>[] = [
  {
    header: 'When',
    cell: (e) => <time dateTime={e.created_at}>{formatDateTime(e.created_at)}</time>,
  },
  { header: 'Event', cell: (e) => <code>{e.type}</code> },
  {
    header: 'Actor',
    cell: (e) =>
      e.actor.user_id ? `user ${e.actor.user_id.slice(0, 8)}` : e.actor.key_id ? `key ${e.actor.key_id.slice(0, 8)}` : 'system',
  },
  { header: 'Target', cell: (e) => (e.target ? `${e.target.type} ${e.target.id.slice(0, 8)}` : '—') },
];

/** The tenant's last audit events, or a note when the role may not read the audit log. */
export function RecentAudit({ events, canRead }: { events: readonly AuditEvent[]; canRead: boolean }) {
  return (
    <section aria-labelledby="audit-heading" className="card dash-section">
      <h2 id="audit-heading">Recent activity</h2>
      {canRead ? (
        <>
          <DataTable
            caption="Recent audit events, newest first"
            columns={columns}
            rows={events}
            rowKey={(e) => e.id}
            empty="No events yet."
          />
          <p>
            <Link href={`/t/${currentTenantId() ?? ''}/audit`}>See the full audit log</Link>
          </p>
        </>
      ) : (
        <p data-testid="audit-hidden">Your role cannot read the audit log, so recent events are not shown here.</p>
      )}
    </section>
  );
}
