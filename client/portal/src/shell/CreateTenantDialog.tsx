import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { client, queryClient, trpc } from '../api';
import { Button, Dialog, ErrorBanner, TextField } from '../ui';

/** Creates a tenant owned by the user (`POST /api/portal/tenants`) and opens it. */
export function CreateTenantDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const [name, setName] = useState('');
  const [, navigate] = useLocation();
  const create = useMutation({
    mutationFn: () => client.portal.createTenant.mutate({ name }),
    onSuccess: async (tenant) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.portal.tenants.queryKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.portal.session.queryKey() }),
      ]);
      onOpenChange(false);
      setName('');
      navigate(`/t/${tenant.tenant_id}/dashboard`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        if (!o) create.reset();
        onOpenChange(o);
      }}
      title="Create a tenant"
      description="A separate space with its own memories, keys and members. You will be its owner."
    >
      <form onSubmit={submit} className="form">
        <TextField label="Tenant name" value={name} onChange={setName} required maxLength={200} autoFocus />
        <ErrorBanner error={create.error} title="Could not create the tenant" />
        <div className="dialog-footer">
          <Button onClick={() => onOpenChange(false)}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create tenant
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
