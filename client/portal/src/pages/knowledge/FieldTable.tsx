import type { RouterOutputs } from '../../api';
import { DataTable, type Column } from '../../ui';
import { confidenceText, provenanceText, valueText, when } from './format';

type KnowledgeObject = RouterOutputs['portal']['knowledgeGet'];
type LogEntry = RouterOutputs['portal']['knowledgeLog']['entries'][number];

interface FieldRow {
  field: string;
  value: unknown;
  provenance: string;
  confidence: number;
  updated_at: string;
  known_none: boolean;
  engine: string | undefined;
}

/**
 * Each filled field: value, provenance, confidence as text, the engine that committed it (from the
 * loaded log; client-written values have none) and when it changed.
 */
export function FieldTable({ object, log }: { object: KnowledgeObject; log: readonly LogEntry[] }) {
  const engineOf = new Map<string, string>();
  for (const e of log) if (e.outcome === 'committed') engineOf.set(e.field, e.engine);
  const rows: FieldRow[] = Object.entries(object.fields).map(([field, f]) => ({
    field,
    value: f.value,
    provenance: f.provenance,
    confidence: f.confidence,
    updated_at: f.updated_at,
    known_none: f.known_none === true,
    engine: f.provenance === 'AGENT_INPUT' ? 'client' : engineOf.get(field),
  }));
  const columns: Column<FieldRow>[] = [
    { header: 'Field', cell: (r) => <code>{r.field}</code> },
    { header: 'Value', cell: (r) => (r.known_none ? 'Known to have none' : valueText(r.value)) },
    { header: 'Provenance', cell: (r) => provenanceText[r.provenance] ?? r.provenance },
    { header: 'Confidence', cell: (r) => confidenceText(r.confidence), numeric: true },
    { header: 'Source', cell: (r) => r.engine ?? '—' },
    { header: 'Updated', cell: (r) => <time dateTime={r.updated_at}>{when(r.updated_at)}</time> },
  ];
  return (
    <DataTable
      caption="Fields with provenance and confidence"
      columns={columns}
      rows={rows}
      rowKey={(r) => r.field}
      empty="No field has a value yet."
    />
  );
}
