import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { trpc } from '../../api';
import { Button, ErrorBanner, Loading } from '../../ui';
import { Completeness } from './Completeness';
import { EnrichButton } from './EnrichButton';
import { EnrichmentLog } from './EnrichmentLog';
import { FieldTable } from './FieldTable';
import { objectLabel, when } from './format';

const LOG_PAGE = 20;
const POLL_MS = 1000;

/** One object: its facts, the field table, "Enrich now" and the enrichment log. Polls while a run holds it. */
export function ObjectDetail({ type, id, canWrite, onClose }: { type: string; id: string; canWrite: boolean; onClose: () => void }) {
  const object = useQuery({
    ...trpc.portal.knowledgeGet.queryOptions({ type, id }),
    refetchInterval: (q) => (q.state.data?.status === 'ENRICHING' ? POLL_MS : false),
  });
  // Keyset paging: cursors[n] is the `after` of page n+1 (undefined for the first page).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const after = cursors.at(-1);
  const enriching = object.data?.status === 'ENRICHING';
  const log = useQuery({
    ...trpc.portal.knowledgeLog.queryOptions({ type, id, limit: LOG_PAGE, ...(after ? { after } : {}) }),
    refetchInterval: enriching ? POLL_MS : false,
  });
  if (object.isPending) return <Loading label="Loading the object…" />;
  if (object.isError)
    return (
      <section className="card" aria-label="Object">
        <ErrorBanner error={object.error} title="Could not load the object" />
        <Button onClick={onClose}>Back to the list</Button>
      </section>
    );
  const o = object.data;
  const headingId = `kn-object-${o.id}`;
  return (
    <section className="card kn-detail" aria-labelledby={headingId}>
      <div className="kn-detail-head">
        <h2 id={headingId}>{objectLabel(o)}</h2>
        <Button variant="ghost" onClick={onClose}>
          Back to the list
        </Button>
      </div>
      <dl className="facts">
        <dt>Type</dt>
        <dd>
          {o.ks_type} (schema {o.schema_version})
        </dd>
        <dt>Status</dt>
        <dd data-testid="kn-object-status">{o.status}</dd>
        <dt>Completeness</dt>
        <dd>
          <Completeness score={o.completeness_score} />
        </dd>
        <dt>Missing</dt>
        <dd>
          {o.missing_fields.length ? o.missing_fields.map((m) => `${m.field}${m.required ? ' (required)' : ''}`).join(', ') : 'Nothing'}
        </dd>
        <dt>Updated</dt>
        <dd>
          <time dateTime={o.updated_at}>{when(o.updated_at)}</time>
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{o.id}</code>
        </dd>
      </dl>
      <EnrichButton type={type} id={id} doNotEnrich={o.do_not_enrich} canWrite={canWrite} status={o.status} />
      <h3>Fields</h3>
      <FieldTable object={o} log={log.data?.entries ?? []} />
      <h3>Enrichment log</h3>
      {log.isPending ? (
        <Loading label="Loading the log…" />
      ) : log.isError ? (
        <ErrorBanner error={log.error} title="Could not load the enrichment log" />
      ) : (
        <EnrichmentLog
          entries={log.data.entries}
          page={cursors.length}
          hasMore={log.data.next_after !== null}
          onPage={(page) => {
            if (page > cursors.length && log.data.next_after) setCursors([...cursors, log.data.next_after]);
            else if (page < cursors.length) setCursors(cursors.slice(0, page));
          }}
        />
      )}
    </section>
  );
}
