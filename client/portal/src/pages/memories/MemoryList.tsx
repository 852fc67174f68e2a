import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { trpc } from '../../api';
import { Button, Checkbox, DataTable, ErrorBanner, Loading, type Column } from '../../ui';
import { FlagBadges, SensitivityBadge } from './Badges';
import { formatWhen, memoriesCount } from './format';
import { PAGE_SIZE } from './options';
import type { MemoryListItem } from './types';
import type { DeleteSelector } from './useDeleteFlow';
import { filterOf, hasFilter, listInputOf, pageOf, type UrlValues } from './useMemoriesUrl';

/**
 * The browse view: the filtered page with its total, row selection, and deletion of the selected
 * rows or of everything the filter matches.
 */
export function MemoryList({
  values,
  onPage,
  onOpen,
  canDelete,
  onDelete,
  focusHeading = false,
}: {
  values: UrlValues;
  onPage: (page: number) => void;
  onOpen: (id: string) => void;
  canDelete: boolean;
  /** Coming back from a memory: keyboard focus lands on the list's heading, not on the page's end. */
  focusHeading?: boolean;
  onDelete: (selector: DeleteSelector, what: string, onDone?: () => void) => void;
}) {
  const input = listInputOf(values);
  const list = useQuery({ ...trpc.portal.memoriesList.queryOptions(input), placeholderData: keepPreviousData });
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const heading = useRef<HTMLHeadingElement>(null);
  const loaded = list.isSuccess;
  useEffect(() => {
    if (focusHeading && loaded) heading.current?.focus();
  }, [focusHeading, loaded]);
  if (list.isPending) return <Loading label="Loading memories…" />;
  if (list.isError) return <ErrorBanner error={list.error} title="Could not load the memories" />;
  const rows = list.data.memories;
  // Selection only counts what this page shows (a filter or page change leaves the rest behind).
  const visibleSelected = rows.filter((r) => selected.has(r.id)).map((r) => r.id);
  const toggle = (id: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const allOnPage = rows.length > 0 && visibleSelected.length === rows.length;
  const filtered = hasFilter(values);

  const columns: Column<MemoryListItem>[] = [
    ...(canDelete
      ? [
          {
            header: 'Select',
            cell: (m: MemoryListItem) => (
              <input
                type="checkbox"
                className="mem-row-check"
                aria-label={`Select “${m.title || m.id}”`}
                checked={selected.has(m.id)}
                onChange={(e) => toggle(m.id, e.target.checked)}
              />
            ),
          },
        ]
      : []),
    {
      header: 'Memory',
      cell: (m) => (
        <div className="mem-title-cell">
          <button type="button" className="mem-link" onClick={() => onOpen(m.id)}>
            {m.title || '(untitled)'}
          </button>
          <span className="mem-preview">{m.preview}</span>
        </div>
      ),
    },
    { header: 'Type', cell: (m) => m.type },
    { header: 'Sensitivity', cell: (m) => <SensitivityBadge value={m.sensitivity} /> },
    { header: 'Status', cell: (m) => m.status },
    { header: 'Contradiction', cell: (m) => m.contradiction },
    { header: 'Flags', cell: (m) => <FlagBadges injection={m.injection_flagged} contradiction={m.contradiction} dirty={m.dirty} /> },
    { header: 'Namespace', cell: (m) => <code>{m.namespace}</code> },
    { header: 'Created', cell: (m) => <time dateTime={m.created_at}>{formatWhen(m.created_at)}</time> },
    { header: 'Updated', cell: (m) => <time dateTime={m.updated_at}>{formatWhen(m.updated_at)}</time> },
  ];

  return (
    <section aria-labelledby="mem-list-heading" className="mem-section">
      <div className="mem-toolbar">
        <h2 id="mem-list-heading" ref={heading} tabIndex={-1}>
          {filtered ? 'Matching memories' : 'All memories'}{' '}
          <span className="mem-count" data-testid="memories-total">
            ({memoriesCount(list.data.total)})
          </span>
        </h2>
        {canDelete && (
          <div className="mem-actions">
            {rows.length > 0 && (
              <Checkbox
                label="Select all on this page"
                checked={allOnPage}
                onChange={(on) => setSelected(on ? new Set(rows.map((r) => r.id)) : new Set())}
              />
            )}
            <Button
              variant="danger"
              disabled={visibleSelected.length === 0}
              onClick={() => onDelete({ ids: visibleSelected }, 'the selected memories', () => setSelected(new Set()))}
            >
              Delete selected ({visibleSelected.length})
            </Button>
            <Button
              variant="danger"
              disabled={list.data.total === 0}
              onClick={() =>
                onDelete(
                  filtered ? { filter: filterOf(values) } : { all: true },
                  filtered ? 'everything matching the filter' : 'every memory of this tenant',
                  () => setSelected(new Set()),
                )
              }
            >
              {filtered ? 'Delete all matching' : 'Delete all memories'}
            </Button>
          </div>
        )}
      </div>
      <DataTable
        caption="Memories, newest first"
        columns={columns}
        rows={rows}
        rowKey={(m) => m.id}
        empty={filtered ? 'No memory matches these filters.' : 'No memories yet.'}
        pagination={{ page: pageOf(values), pageSize: PAGE_SIZE, total: list.data.total, onPage }}
      />
    </section>
  );
}
