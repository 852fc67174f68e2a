import { DataTable, type Column } from '../../ui';
import { describeActor, describeTarget, formatTime, type AuditEvent } from './auditFormat';
import { EventDetails } from './EventDetails';

const columns: readonly Column<AuditEvent>[] = [
  {
    header: 'Time',
    cell: (e) => <time dateTime={e.created_at}>{formatTime(e.created_at)}</time>,
  },
  { header: 'Type', cell: (e) => <code>{e.type}</code> },
  { header: 'Actor', cell: (e) => <span className="audit-id">{describeActor(e.actor)}</span> },
  { header: 'Target', cell: (e) => <span className="audit-id">{describeTarget(e.target)}</span> },
  { header: 'IP', cell: (e) => e.ip ?? '—' },
  { header: 'Details', cell: (e) => <EventDetails event={e} /> },
];

export function AuditTable({
  events,
  total,
  page,
  pageSize,
  onPage,
  filtered,
}: {
  events: readonly AuditEvent[];
  total: number;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  filtered: boolean;
}) {
  return (
    <>
      <p role="status" aria-live="polite" data-testid="audit-total">
        {total} event{total === 1 ? '' : 's'}
        {filtered ? ' match the filters' : ' in total'}
      </p>
      <DataTable
        caption="Audit events, newest first"
        columns={columns}
        rows={events}
        rowKey={(e) => e.id}
        pagination={{ page, pageSize, total, onPage }}
        empty={filtered ? 'No events match these filters.' : 'No events yet.'}
      />
    </>
  );
}
