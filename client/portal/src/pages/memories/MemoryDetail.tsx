import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { httpStatusOf, queryClient, trpc } from '../../api';
import { Button, EmptyState, ErrorBanner, Loading } from '../../ui';
import { FlagBadges, SensitivityBadge } from './Badges';
import { FlagsSection } from './FlagsSection';
import { formatWhen } from './format';
import type { DeleteSelector } from './useDeleteFlow';
import { VersionList, type QueuedRollback } from './VersionList';

const POLL_MS = 500;

/**
 * One memory (`?open=<id>`): content, metadata, flags explained, versions with rollback, and delete.
 * While a write is queued the detail and versions are refetched until it is committed.
 */
export function MemoryDetailView({
  id,
  onBack,
  onOpen,
  canWrite,
  canDelete,
  onDelete,
}: {
  id: string;
  onBack: () => void;
  onOpen: (id: string) => void;
  canWrite: boolean;
  canDelete: boolean;
  onDelete: (selector: DeleteSelector, what: string, onDone?: () => void) => void;
}) {
  const [queued, setQueued] = useState<QueuedRollback | null>(null);
  const versions = useQuery({
    ...trpc.portal.memoryVersions.queryOptions({ id }),
    refetchInterval: (q) => (queued && !q.state.data?.versions.some((v) => v.version >= queued.version) ? POLL_MS : false),
  });
  const committed = queued !== null && versions.data?.versions.some((v) => v.version >= queued.version) === true;
  const memory = useQuery({
    ...trpc.portal.memoryGet.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data?.dirty || (queued && !committed) ? POLL_MS : false),
  });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [id]);
  useEffect(() => {
    if (committed) {
      void queryClient.invalidateQueries({ queryKey: trpc.portal.memoryGet.queryKey({ id }) });
      void queryClient.invalidateQueries({ queryKey: trpc.portal.memoriesList.pathKey() });
    }
  }, [committed, id]);

  const back = (
    <Button variant="ghost" onClick={onBack}>
      ← All memories
    </Button>
  );
  if (memory.isPending) return <Loading label="Loading the memory…" />;
  if (memory.isError)
    return (
      <>
        {back}
        {httpStatusOf(memory.error) === 404 ? (
          <EmptyState title="This memory does not exist">It may have been deleted, or it belongs to another tenant.</EmptyState>
        ) : (
          <ErrorBanner error={memory.error} title="Could not load the memory" />
        )}
      </>
    );
  const m = memory.data;
  return (
    <article className="mem-detail" aria-labelledby="mem-detail-heading">
      <div className="mem-toolbar">
        {back}
        {canDelete && (
          <Button variant="danger" onClick={() => onDelete({ ids: [m.memory_id] }, 'this memory', onBack)}>
            Delete this memory
          </Button>
        )}
      </div>
      <h2 id="mem-detail-heading" ref={heading} tabIndex={-1} className="mem-detail-title">
        {m.title || '(untitled)'}
      </h2>
      <p role="status" aria-live="polite" className="mem-status" data-testid="rollback-status">
        {queued
          ? committed
            ? `Rolled back: version ${queued.version} now has the content of version ${queued.rolledBackTo}.`
            : `Rollback queued as version ${queued.version}; waiting for it to be committed…`
          : m.dirty
            ? `${m.pending_count} write(s) queued; showing version ${m.consolidated_version} until they are committed.`
            : ''}
      </p>
      <section className="card" aria-labelledby="mem-content-heading">
        <h2 id="mem-content-heading">Content</h2>
        <pre className="mem-pre">{m.content}</pre>
      </section>
      <section className="card" aria-labelledby="mem-meta-heading">
        <h2 id="mem-meta-heading">Details</h2>
        <dl className="facts">
          <dt>Id</dt>
          <dd>
            <code>{m.memory_id}</code>
          </dd>
          <dt>Flags</dt>
          <dd>
            <FlagBadges injection={m.injection_flagged} contradiction={m.contradiction_status} dirty={m.dirty} />
          </dd>
          <dt>Type</dt>
          <dd>{m.type}</dd>
          <dt>Sensitivity</dt>
          <dd>
            <SensitivityBadge value={m.sensitivity} />
            {m.sensitivity_reasons.length > 0 && <> — detected: {m.sensitivity_reasons.join(', ')}</>}
          </dd>
          <dt>Status</dt>
          <dd>{m.status}</dd>
          <dt>Namespace</dt>
          <dd>
            <code>{m.namespace}</code>
          </dd>
          <dt>Agent</dt>
          <dd>{m.agent_id ?? '—'}</dd>
          <dt>Tags</dt>
          <dd>{m.tags.length > 0 ? m.tags.join(', ') : '—'}</dd>
          <dt>Version</dt>
          <dd>
            {m.version} (committed: {m.consolidated_version})
          </dd>
          <dt>Quality</dt>
          <dd>{m.quality.toFixed(2)}</dd>
          <dt>Created</dt>
          <dd>
            <time dateTime={m.created_at}>{formatWhen(m.created_at)}</time>
          </dd>
          <dt>Updated</dt>
          <dd>
            <time dateTime={m.updated_at}>{formatWhen(m.updated_at)}</time>
          </dd>
          {m.merged_into && (
            <>
              <dt>Merged into</dt>
              <dd>
                <button type="button" className="mem-link" onClick={() => onOpen(m.merged_into!)}>
                  <code>{m.merged_into}</code>
                </button>
              </dd>
            </>
          )}
        </dl>
        {Object.keys(m.metadata ?? {}).length > 0 && (
          <details className="mem-metadata">
            <summary>Metadata</summary>
            <pre className="mem-pre">{JSON.stringify(m.metadata, null, 2)}</pre>
          </details>
        )}
      </section>
      <FlagsSection memory={m} onOpen={onOpen} />
      {versions.isPending ? (
        <Loading label="Loading versions…" />
      ) : versions.isError ? (
        <ErrorBanner error={versions.error} title="Could not load the versions" />
      ) : (
        <VersionList memoryId={m.memory_id} versions={versions.data.versions} canWrite={canWrite} onQueued={setQueued} />
      )}
    </article>
  );
}
