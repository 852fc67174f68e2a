import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { trpc } from '../../api';
import { DataTable, EmptyState, ErrorBanner, Loading, type Column } from '../../ui';
import { FlagBadges } from './Badges';
import { formatWhen, plural } from './format';
import { PAGE_SIZE } from './options';
import type { SearchMode, SearchResult } from './types';

const MODE_LABEL: Record<SearchMode, string> = { 'vector-only': 'vector only', hybrid: 'hybrid', 'hybrid+graph': 'hybrid + graph' };

/** Ranked results of `portal.memorySearch` with their scores (comparable within one answer). */
export function SearchResults({
  query,
  mode,
  page,
  onPage,
  onOpen,
}: {
  query: string;
  mode: SearchMode;
  page: number;
  onPage: (page: number) => void;
  onOpen: (id: string) => void;
}) {
  const offset = (page - 1) * PAGE_SIZE;
  const search = useQuery({
    ...trpc.portal.memorySearch.queryOptions({ q: query, mode, k: PAGE_SIZE, offset }),
    enabled: query !== '',
    placeholderData: keepPreviousData,
  });
  if (!query) return <EmptyState title="Type a query to search">Results are ranked by relevance, best first.</EmptyState>;
  if (search.isPending) return <Loading label="Searching…" />;
  if (search.isError) return <ErrorBanner error={search.error} title="The search failed" />;
  const columns: Column<SearchResult & { rank: number }>[] = [
    { header: 'Rank', cell: (r) => r.rank, numeric: true },
    { header: 'Score', cell: (r) => r.score.toFixed(3), numeric: true },
    {
      header: 'Memory',
      cell: (r) => (
        <div className="mem-title-cell">
          <button type="button" className="mem-link" onClick={() => onOpen(r.memory_id)}>
            {r.title || '(untitled)'}
          </button>
          <span className="mem-preview">{r.content.slice(0, 200)}</span>
        </div>
      ),
    },
    { header: 'Flags', cell: (r) => <FlagBadges injection={r.injection_flagged} contradiction="clear" /> },
    { header: 'Namespace', cell: (r) => <code>{r.namespace}</code> },
    { header: 'Created', cell: (r) => <time dateTime={r.created_at}>{formatWhen(r.created_at)}</time> },
  ];
  const rows = search.data.results.map((r, i) => ({ ...r, rank: offset + i + 1 }));
  return (
    <section aria-labelledby="mem-search-heading" className="mem-section">
      <h2 id="mem-search-heading">
        Results for “{query}”{' '}
        <span className="mem-count">
          ({MODE_LABEL[mode]}, {plural(search.data.total, 'result', 'results')})
        </span>
      </h2>
      <DataTable
        caption={`Search results for ${query}, best first`}
        columns={columns}
        rows={rows}
        rowKey={(r) => r.memory_id}
        empty="Nothing found. Try other words or another mode."
        pagination={{ page, pageSize: PAGE_SIZE, hasMore: search.data.next_cursor !== null, onPage }}
      />
    </section>
  );
}
