import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { trpc } from '../../api';
import { Button, ErrorBanner, Loading, PageHeader, usePermissions } from '../../ui';
import './credentials.css';
import { CreateCredentialDialog } from './CreateCredentialDialog';
import { CredentialsTable } from './CredentialsTable';
import { SecretDialog } from './SecretDialog';
import type { Credential, ShownSecret } from './types';

const CREATE_BUTTON_ID = 'create-api-key';

/**
 * The tenant's API keys: list, create (the secret shown once), rotate and revoke. Viewers read only;
 * members manage the keys they created; owners and admins every key.
 */
export default function CredentialsPage() {
  const queryClient = useQueryClient();
  const credentials = useQuery(trpc.portal.listCredentials.queryOptions({}));
  const perms = usePermissions();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const canManage = perms.can('api_keys:manage');
  const mayManage = (c: Credential) => canManage && (perms.can('api_keys:manage_all') || c.created_by === perms.userId);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.portal.listCredentials.queryKey() });
    // A new key ticks onboarding; the dashboard's numbers should follow.
    void queryClient.invalidateQueries({ queryKey: trpc.portal.dashboard.queryKey() });
  };
  return (
    <>
      <PageHeader
        title="API keys"
        actions={
          canManage && (
            <Button id={CREATE_BUTTON_ID} variant="primary" onClick={() => setCreating(true)}>
              Create API key
            </Button>
          )
        }
      />
      <p className="cred-intro">
        Applications send a key as <code>X-API-Key</code>. Secrets are shown once, when a key is created or rotated.
        {!perms.isPending && !canManage && ' Your role can view keys but not create or change them.'}
      </p>
      <p role="status" className="visually-hidden">
        {announcement}
      </p>
      {credentials.isPending ? (
        <Loading label="Loading API keys…" />
      ) : credentials.isError ? (
        <ErrorBanner error={credentials.error} title="Could not load the API keys" />
      ) : (
        <CredentialsTable
          credentials={credentials.data.credentials}
          mayManage={mayManage}
          onRotated={(r) => setShown({ name: r.name, secret: r.secret, kind: 'rotated' })}
          onChanged={() => {
            setAnnouncement('API keys updated.');
            refresh();
          }}
        />
      )}
      <CreateCredentialDialog
        open={creating}
        onOpenChange={setCreating}
        onCreated={(created) => {
          setCreating(false);
          setShown({ name: created.name, secret: created.secret, kind: 'created' });
          setAnnouncement(`API key ${created.name} created.`);
          refresh();
        }}
      />
      <SecretDialog
        shown={shown}
        onClose={() => {
          const after = shown?.kind;
          setShown(null);
          // After a create the element focused before the dialog (the form's submit) is gone: go back to "Create API key".
          if (after === 'created') setTimeout(() => document.getElementById(CREATE_BUTTON_ID)?.focus(), 0);
        }}
      />
    </>
  );
}
