import { useQuery } from '@tanstack/react-query';
import { DropdownMenu } from 'radix-ui';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { trpc } from '../api';
import { CreateTenantDialog } from './CreateTenantDialog';

/** The current tenant and a menu of the user's others (same page in the other tenant), plus "Create tenant". */
export function TenantSwitcher({ tenantId, page }: { tenantId: string; page: string }) {
  const tenants = useQuery(trpc.portal.tenants.queryOptions({}));
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState(false);
  const list = tenants.data?.tenants ?? [];
  const current = list.find((t) => t.tenant_id === tenantId);
  return (
    <>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger className="btn btn-ghost tenant-trigger">
          <span className="visually-hidden">Tenant: </span>
          <span className="tenant-name">{current?.name ?? 'Tenant'}</span>
          {current && <span className="tenant-role">{current.role}</span>}
          <span className="visually-hidden">, switch tenant</span>
          <span aria-hidden="true">▾</span>
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className="menu" align="start" sideOffset={4}>
            <DropdownMenu.Label className="menu-label">Your tenants</DropdownMenu.Label>
            <DropdownMenu.RadioGroup value={tenantId} onValueChange={(id) => navigate(`/t/${id}/${page}`)}>
              {list.map((t) => (
                <DropdownMenu.RadioItem key={t.tenant_id} value={t.tenant_id} className="menu-item">
                  <DropdownMenu.ItemIndicator className="menu-indicator">✓</DropdownMenu.ItemIndicator>
                  <span>{t.name}</span>
                  <span className="menu-hint">{t.role}</span>
                </DropdownMenu.RadioItem>
              ))}
            </DropdownMenu.RadioGroup>
            <DropdownMenu.Separator className="menu-separator" />
            <DropdownMenu.Item className="menu-item" onSelect={() => setCreating(true)}>
              Create tenant…
            </DropdownMenu.Item>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      <CreateTenantDialog open={creating} onOpenChange={setCreating} />
    </>
  );
}
