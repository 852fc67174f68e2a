import type { ReactNode } from 'react';
import { Button } from './Button';
import { EmptyState } from './EmptyState';

export interface Column<Row> {
  /** Column heading (also the accessible name of its cells' header). */
  header: string;
  cell: (row: Row) => ReactNode;
  /** Right-aligns numbers. */
  numeric?: boolean;
}

export interface Pagination {
  /** 1-based page number. */
  page: number;
  pageSize: number;
  /** Total rows when the API reports it; otherwise `hasMore` decides whether Next is enabled. */
  total?: number;
  hasMore?: boolean;
  onPage: (page: number) => void;
}

/**
 * A table with a caption, real header cells and page controls. On narrow screens it scrolls
 * sideways inside its own region (focusable, so keyboard users can scroll it too).
 */
export function DataTable<Row>({
  caption,
  columns,
  rows,
  rowKey,
  pagination,
  empty = 'Nothing here yet.',
}: {
  caption: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  pagination?: Pagination;
  empty?: string;
}) {
  if (rows.length === 0 && (!pagination || pagination.page === 1)) return <EmptyState title={empty} />;
  const pages = pagination?.total !== undefined ? Math.max(1, Math.ceil(pagination.total / pagination.pageSize)) : undefined;
  const hasNext = pagination ? (pages !== undefined ? pagination.page < pages : pagination.hasMore === true) : false;
  return (
    <div className="table-wrap">
      <div className="table-scroll" tabIndex={0} role="region" aria-label={caption}>
        <table className="data-table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.header} scope="col" className={c.numeric ? 'numeric' : undefined}>
                  {c.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={rowKey(row)}>
                {columns.map((c) => (
                  <td key={c.header} className={c.numeric ? 'numeric' : undefined}>
                    {c.cell(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pagination && (
        <nav className="pager" aria-label={`${caption} pages`}>
          <Button disabled={pagination.page <= 1} onClick={() => pagination.onPage(pagination.page - 1)}>
            Previous
          </Button>
          <span aria-live="polite">
            Page {pagination.page}
            {pages !== undefined && ` of ${pages}`}
          </span>
          <Button disabled={!hasNext} onClick={() => pagination.onPage(pagination.page + 1)}>
            Next
          </Button>
        </nav>
      )}
    </div>
  );
}
