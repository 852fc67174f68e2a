import { useState } from 'react';
import { client } from '../../api';
import { Button, ConfirmDialog, DataTable, type Column } from '../../ui';
import { formatWhen } from './format';
import type { MemoryVersion } from './types';

export interface QueuedRollback {
  version: number;
  rolledBackTo: number;
}

/**
 * The memory's committed versions, newest first, each with its content (and whether it changed), and
 * "roll back to this version" behind a confirmation. A rollback is queued: the caller shows that and
 * refetches until the new version is committed.
 */
export function VersionList({
  memoryId,
  versions,
  canWrite,
  onQueued,
}: {
  memoryId: string;
  versions: readonly MemoryVersion[];
  canWrite: boolean;
  onQueued: (queued: QueuedRollback) => void;
}) {
  const [target, setTarget] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const latest = versions.reduce((max, v) => Math.max(max, v.version), 0);
  const byVersion = new Map(versions.map((v) => [v.version, v]));
  const rollback = async () => {
    if (target === null) return;
    setBusy(true);
    setError(null);
    try {
      const receipt = await client.portal.memoryRollback.mutate({ id: memoryId, target_version: target });
      onQueued({ version: receipt.version, rolledBackTo: receipt.rolled_back_to });
      setTarget(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const columns: Column<MemoryVersion>[] = [
    { header: 'Version', cell: (v) => (v.version === latest ? `${v.version} (current)` : v.version), numeric: true },
    { header: 'Change', cell: (v) => (v.rolled_back_to ? `${v.change} to version ${v.rolled_back_to}` : v.change) },
    { header: 'Date', cell: (v) => <time dateTime={v.created_at}>{formatWhen(v.created_at)}</time> },
    {
      header: 'Content',
      cell: (v) => {
        const previous = byVersion.get(v.version - 1);
        const changed = !previous || previous.content !== v.content || previous.title !== v.title;
        return (
          <details className="mem-version-content">
            <summary>
              {v.title || '(untitled)'}
              {previous && (changed ? ' — changed' : ' — same content as before')}
            </summary>
            <pre className="mem-pre">{v.content}</pre>
          </details>
        );
      },
    },
    ...(canWrite
      ? [
          {
            header: 'Action',
            cell: (v: MemoryVersion) =>
              v.version === latest ? (
                <span className="mem-muted">Current</span>
              ) : (
                <Button onClick={() => setTarget(v.version)}>Roll back to version {v.version}</Button>
              ),
          },
        ]
      : []),
  ];
  return (
    <section className="mem-section" aria-labelledby="mem-versions-heading">
      <h2 id="mem-versions-heading">Versions</h2>
      <DataTable
        caption="Versions, newest first"
        columns={columns}
        rows={[...versions].sort((a, b) => b.version - a.version)}
        rowKey={(v) => String(v.version)}
        empty="No committed version yet (the first write is still queued)."
      />
      <ConfirmDialog
        open={target !== null}
        onOpenChange={(open) => {
          if (!open && !busy) {
            setTarget(null);
            setError(null);
          }
        }}
        title={`Roll back to version ${target ?? ''}?`}
        description={`A new version with the content of version ${target ?? ''} is written; the versions in between stay in the history.`}
        confirmLabel="Roll back"
        busy={busy}
        error={error}
        onConfirm={() => void rollback()}
      />
    </section>
  );
}
