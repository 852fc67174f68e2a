import { useQuery } from '@tanstack/react-query';
import { trpc } from '../../api';
import { ErrorBanner, Loading, PageHeader, Select, usePermissions, useUrlPatch, useUrlState } from '../../ui';
import { ObjectDetail } from './ObjectDetail';
import { ObjectList } from './ObjectList';
import { TypePicker } from './TypePicker';

const STATUSES = ['INCOMPLETE', 'ENRICHING', 'PARTIALLY_COMPLETE', 'COMPLETE'] as const;

/**
 * Knowledge objects by type: the type picker (with counts), a status filter and paging in the URL,
 * and the selected object (`?object=`) with per-field provenance, enrichment and its log.
 */
export default function KnowledgePage() {
  const [type] = useUrlState('type', 'person');
  const [status] = useUrlState('status', '');
  const [pageParam, setPage] = useUrlState('page', '1');
  const [selected, setSelected] = useUrlState('object', '');
  const patch = useUrlPatch();
  const access = usePermissions();
  const types = useQuery(trpc.portal.knowledgeTypes.queryOptions({}));
  const page = Math.max(1, Number(pageParam) || 1);
  return (
    <>
      <PageHeader title="Knowledge" />
      {types.isPending ? (
        <Loading label="Loading types…" />
      ) : types.isError ? (
        <ErrorBanner error={types.error} title="Could not load the knowledge types" />
      ) : selected ? (
        <ObjectDetail key={selected} type={type} id={selected} canWrite={access.can('knowledge:write')} onClose={() => setSelected('')} />
      ) : (
        <>
          <div className="kn-filters">
            <TypePicker types={types.data.types} value={type} onChange={(t) => patch({ type: t === 'person' ? '' : t, page: '' })} />
            <Select
              label="Status"
              value={status}
              options={[{ value: '', label: 'Any status' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
              onChange={(s) => patch({ status: s, page: '' })}
            />
          </div>
          <ObjectList type={type} status={status} page={page} onPage={(p) => setPage(String(p))} onOpen={setSelected} />
        </>
      )}
    </>
  );
}
