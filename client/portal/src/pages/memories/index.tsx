import { useState } from 'react';
import { Button, PageHeader, usePermissions } from '../../ui';
import { Filters } from './Filters';
import { MemoryDetailView } from './MemoryDetail';
import { MemoryList } from './MemoryList';
import { SearchForm } from './SearchForm';
import { SearchResults } from './SearchResults';
import { useDeleteFlow } from './useDeleteFlow';
import { modeOf, pageOf, useMemoriesUrl } from './useMemoriesUrl';
import './memories.css';

/**
 * The memory browser: browse with filters or search (mode selectable), open one memory (`?open=<id>`)
 * for its content, flags and versions, and delete one, the selected or all matching (with step-up).
 * Everything that makes the view is in the URL.
 */
export default function MemoriesPage() {
  const { values, update } = useMemoriesUrl();
  const access = usePermissions();
  const canWrite = access.can('memories:write');
  const canDelete = access.can('data:delete');
  const deletion = useDeleteFlow();
  const [cameBack, setCameBack] = useState(false);
  const open = (id: string) => update({ open: id });
  const view = values.view === 'search' ? 'search' : 'browse';

  return (
    <>
      <PageHeader title="Memories" />
      {deletion.element}
      {values.open ? (
        <MemoryDetailView
          key={values.open}
          id={values.open}
          onBack={() => {
            setCameBack(true);
            update({ open: '' });
          }}
          onOpen={open}
          canWrite={canWrite}
          canDelete={canDelete}
          onDelete={deletion.start}
        />
      ) : (
        <>
          <div className="mem-views" role="group" aria-label="View">
            <Button
              aria-pressed={view === 'browse'}
              variant={view === 'browse' ? 'primary' : 'secondary'}
              onClick={() => update({ view: '', page: '' })}
            >
              Browse and filter
            </Button>
            <Button
              aria-pressed={view === 'search'}
              variant={view === 'search' ? 'primary' : 'secondary'}
              onClick={() => update({ view: 'search', page: '' })}
            >
              Ranked search
            </Button>
          </div>
          {view === 'browse' ? (
            <>
              <Filters values={values} onApply={(filters) => update({ ...filters, page: '' })} />
              <MemoryList
                values={values}
                onPage={(page) => update({ page: page === 1 ? '' : String(page) })}
                onOpen={open}
                canDelete={canDelete}
                onDelete={deletion.start}
                focusHeading={cameBack}
              />
            </>
          ) : (
            <>
              <SearchForm query={values.sq} mode={modeOf(values)} onSearch={(sq, mode) => update({ sq, mode, page: '' })} />
              <SearchResults
                query={values.sq}
                mode={modeOf(values)}
                page={pageOf(values)}
                onPage={(page) => update({ page: page === 1 ? '' : String(page) })}
                onOpen={open}
              />
            </>
          )}
        </>
      )}
    </>
  );
}
