import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { client, trpc, type RouterInputs, type RouterOutputs } from '../../api';
import { Button, Dialog, ErrorBanner, Loading, TextField } from '../../ui';
import { parseList } from './parseList';
import { ScopePicker } from './ScopePicker';
import { TextArea } from './TextArea';

type Created = RouterOutputs['portal']['createCredential'];
type CreateInput = RouterInputs['portal']['createCredential'];

const DEFAULT_SCOPES = ['memories:read', 'memories:write'];

/** The create form: name, scopes (from the scopes route), optional namespaces and IP allowlist. */
function CreateForm({ onCreated, onCancel }: { onCreated: (created: Created) => void; onCancel: () => void }) {
  const scopes = useQuery(trpc.portal.scopes.queryOptions({}));
  const [name, setName] = useState('');
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const [namespaces, setNamespaces] = useState('');
  const [ipAllowlist, setIpAllowlist] = useState('');
  const [tried, setTried] = useState(false);
  const create = useMutation({
    mutationFn: (input: CreateInput) => client.portal.createCredential.mutate(input),
    // The answer holds the secret: hand it up and keep no copy in the mutation cache.
    gcTime: 0,
    onSuccess: onCreated,
  });
  if (scopes.isPending) return <Loading label="Loading scopes…" />;
  if (scopes.isError) return <ErrorBanner error={scopes.error} title="Could not load the scopes" />;
  const grantable = new Set(scopes.data.scopes.filter((s) => s.grantable).map((s) => s.scope as string));
  const selected = picked ?? new Set(DEFAULT_SCOPES.filter((s) => grantable.has(s)));
  const nameError = tried && name.trim() === '' ? 'Give the key a name.' : undefined;
  const scopeError = tried && selected.size === 0 ? 'Pick at least one scope.' : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (name.trim() === '' || selected.size === 0) return;
    create.mutate({
      name: name.trim(),
      scopes: [...selected] as CreateInput['scopes'],
      namespaces: parseList(namespaces),
      ip_allowlist: parseList(ipAllowlist),
    });
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <TextField
        label="Name"
        value={name}
        onChange={setName}
        required
        autoFocus
        error={nameError}
        hint="What uses this key, e.g. “ingest worker”."
      />
      <ScopePicker scopes={scopes.data.scopes} selected={selected} onChange={setPicked} error={scopeError} />
      <TextArea
        label="Namespaces (optional)"
        value={namespaces}
        onChange={setNamespaces}
        hint="Comma- or line-separated. Leave empty to allow every namespace."
      />
      <TextArea
        label="IP allowlist (optional)"
        value={ipAllowlist}
        onChange={setIpAllowlist}
        placeholder="203.0.113.0/24"
        hint="Addresses or CIDR ranges, comma- or line-separated. Leave empty to allow any address."
      />
      <ErrorBanner error={create.error} title="Could not create the key" />
      <div className="dialog-footer">
        <Button onClick={onCancel} disabled={create.isPending}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" busy={create.isPending}>
          Create key
        </Button>
      </div>
    </form>
  );
}

/** "Create API key" dialog; the form remounts each time it opens, so nothing lingers between keys. */
export function CreateCredentialDialog({
  open,
  onOpenChange,
  onCreated,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (created: Created) => void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Create an API key" description="The key acts within the scopes you pick here.">
      {open && <CreateForm onCreated={onCreated} onCancel={() => onOpenChange(false)} />}
    </Dialog>
  );
}
