import { useQuery } from '@tanstack/react-query';
import { trpc, type RouterOutputs } from '../../api';
import { DataTable, ErrorBanner, Loading, type Column } from '../../ui';
import { Completeness } from './Completeness';
import { objectLabel, when } from './format';

type KnowledgeObject = RouterOutputs['portal']['knowledgeList']['objects'][number];

export const PAGE_SIZE = 20;

/** One page of a type's objects (oldest first) with completeness and status; a row's name opens it. */
export function ObjectList({
  type,
  status,
  page,
  onPage,
  onOpen,
}: {
  type: string;
  status: string;
  page: number;
  onPage: (page: number) => void;
  onOpen: (id: string) => void;
}) {
  const list = useQuery(
    trpc.portal.knowledgeList.queryOptions({
      type,
      limit: PAGE_SIZE,
      offset: (page - 1) * PAGE_SIZE,
      ...(status ? { status: status as KnowledgeObject['status'] } : {}),
    }),
  );
  if (list.isPending) return <Loading label="Loading objects…" />;
  if (list.isError) return <ErrorBanner error={list.error} title="Could not load the objects" />;
  const columns: Column<KnowledgeObject>[] = [
    {
      header: 'Object',
      cell: (o) => (
        <button type="button" className="link-button" onClick={() => onOpen(o.id)}>
          {objectLabel(o)}
        </button>
      ),
    },
    { header: 'Completeness', cell: (o) => <Completeness score={o.completeness_score} /> },
    { header: 'Status', cell: (o) => <span className="kn-status">{o.status}</span> },
    { header: 'Updated', cell: (o) => <time dateTime={o.updated_at}>{when(o.updated_at)}</time> },
  ];
  return (
    <DataTable
      caption={`${type} objects, oldest first (${list.data.total} in all)`}
      columns={columns}
      rows={list.data.objects}
      rowKey={(o) => o.id}
      empty={`No ${type} objects${status ? ` with status ${status}` : ''} yet.`}
      pagination={{ page, pageSize: PAGE_SIZE, total: list.data.total, onPage }}
    />
  );
}
