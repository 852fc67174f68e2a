import type { RouterOutputs } from '../../api';
import { DataTable, type Column } from '../../ui';
import { CredentialActions } from './CredentialActions';
import type { Credential } from './types';

type Rotated = RouterOutputs['portal']['rotateCredential'];

const when = (iso: string | null, never = '—') =>
  iso ? (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' })}
    </time>
  ) : (
    never
  );

const list = (items: readonly string[] | null, all: string) =>
  items === null ? (
    <span className="cred-muted">{all}</span>
  ) : (
    <span className="cred-chips">
      {items.map((i) => (
        <code key={i} className="cred-chip">
          {i}
        </code>
      ))}
    </span>
  );

/** The tenant's keys; actions only on the active keys the user may manage. */
export function CredentialsTable({
  credentials,
  mayManage,
  onRotated,
  onChanged,
}: {
  credentials: readonly Credential[];
  mayManage: (credential: Credential) => boolean;
  onRotated: (rotated: Rotated) => void;
  onChanged: () => void;
}) {
  const columns: Column<Credential>[] = [
    { header: 'Name', cell: (c) => <strong>{c.name}</strong> },
    { header: 'Prefix', cell: (c) => <code>{c.prefix}…</code> },
    { header: 'Scopes', cell: (c) => list(c.scopes, '') },
    { header: 'Namespaces', cell: (c) => list(c.namespaces, 'All') },
    { header: 'IP allowlist', cell: (c) => list(c.ip_allowlist, 'Any address') },
    { header: 'Created', cell: (c) => when(c.created_at) },
    { header: 'Last used', cell: (c) => when(c.last_used_at, 'Never') },
    {
      header: 'Status',
      cell: (c) =>
        c.status === 'active' ? (
          <span className="cred-status cred-status-active">Active</span>
        ) : (
          <span className="cred-status cred-status-revoked">Revoked {c.revoked_at && <>{when(c.revoked_at)}</>}</span>
        ),
    },
  ];
  if (credentials.some(mayManage)) {
    columns.push({
      header: 'Actions',
      cell: (c) =>
        c.status === 'active' && mayManage(c) ? <CredentialActions credential={c} onRotated={onRotated} onChanged={onChanged} /> : null,
    });
  }
  return <DataTable caption="API keys" columns={columns} rows={credentials} rowKey={(c) => c.id} empty="No API keys yet." />;
}
