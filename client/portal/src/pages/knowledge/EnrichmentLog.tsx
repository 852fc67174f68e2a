import type { RouterOutputs } from '../../api';
import { DataTable, type Column } from '../../ui';
import { confidenceText, valueText, when } from './format';

type LogEntry = RouterOutputs['portal']['knowledgeLog']['entries'][number];

const columns: Column<LogEntry>[] = [
  { header: 'When', cell: (e) => <time dateTime={e.created_at}>{when(e.created_at)}</time> },
  { header: 'Field', cell: (e) => <code>{e.field}</code> },
  { header: 'Engine', cell: (e) => e.engine },
  { header: 'Strategy', cell: (e) => e.strategy },
  { header: 'Candidate', cell: (e) => valueText(e.candidate_value) },
  { header: 'Confidence', cell: (e) => confidenceText(e.confidence), numeric: true },
  { header: 'Outcome', cell: (e) => e.outcome },
  { header: 'Sources', cell: (e) => (e.source_refs.length ? e.source_refs.join(', ') : '—') },
];

/** One page of the enrichment log, oldest first (the API's order), keyset-paged by the caller. */
export function EnrichmentLog({
  entries,
  page,
  hasMore,
  onPage,
}: {
  entries: readonly LogEntry[];
  page: number;
  hasMore: boolean;
  onPage: (page: number) => void;
}) {
  return (
    <DataTable
      caption="Enrichment log, oldest first"
      columns={columns}
      rows={entries}
      rowKey={(e) => e.id}
      empty="No enrichment has run for this object yet."
      pagination={{ page, pageSize: entries.length, hasMore, onPage }}
    />
  );
}
