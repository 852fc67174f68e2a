import { DropdownMenu } from 'radix-ui';
import { useLocation } from 'wouter';
import { client, queryClient, setCsrfToken, setTenantId, type PortalSession } from '../api';

/** Who is signed in, a link to Settings and Sign out (ends the session on the server, then forgets everything). */
export function UserMenu({ session, tenantId }: { session: PortalSession; tenantId: string }) {
  const [, navigate] = useLocation();
  const signOut = async () => {
    try {
      await client.portal.logout.mutate({});
    } finally {
      setCsrfToken(undefined);
      setTenantId(undefined);
      queryClient.clear();
      navigate('/sign-in', { replace: true });
    }
  };
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className="btn btn-ghost user-trigger">
        <span className="visually-hidden">Account: </span>
        <span className="user-email">{session.email}</span>
        <span aria-hidden="true">▾</span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu" align="end" sideOffset={4}>
          <DropdownMenu.Label className="menu-label">{session.name ?? session.email}</DropdownMenu.Label>
          <DropdownMenu.Item className="menu-item" onSelect={() => navigate(`/t/${tenantId}/settings`)}>
            Settings
          </DropdownMenu.Item>
          <DropdownMenu.Separator className="menu-separator" />
          <DropdownMenu.Item className="menu-item" onSelect={() => void signOut()}>
            Sign out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
