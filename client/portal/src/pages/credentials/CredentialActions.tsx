import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { client, type RouterOutputs } from '../../api';
import { Button, ConfirmDialog } from '../../ui';
import type { Credential } from './types';

type Rotated = RouterOutputs['portal']['rotateCredential'];

/** Rotate (confirm, then the new secret once) and revoke (confirm) for one active key. */
export function CredentialActions({
  credential,
  onRotated,
  onChanged,
}: {
  credential: Credential;
  onRotated: (rotated: Rotated) => void;
  onChanged: () => void;
}) {
  const [confirm, setConfirm] = useState<'rotate' | 'revoke' | null>(null);
  const rotate = useMutation({
    mutationFn: () => client.portal.rotateCredential.mutate({ id: credential.id }),
    // The answer holds the new secret: hand it up, then drop it (reset) so no copy stays in the cache.
    gcTime: 0,
    onSuccess: (rotated) => {
      setConfirm(null);
      onChanged();
      onRotated(rotated);
      rotate.reset();
    },
  });
  const revoke = useMutation({
    mutationFn: () => client.portal.revokeCredential.mutate({ id: credential.id }),
    onSuccess: () => {
      setConfirm(null);
      onChanged();
    },
  });
  const close = (open: boolean) => {
    if (open) return;
    setConfirm(null);
    rotate.reset();
    revoke.reset();
  };
  return (
    <div className="cred-actions">
      <Button onClick={() => setConfirm('rotate')} aria-label={`Rotate ${credential.name}`}>
        Rotate
      </Button>
      <Button variant="danger" onClick={() => setConfirm('revoke')} aria-label={`Revoke ${credential.name}`}>
        Revoke
      </Button>
      <ConfirmDialog
        open={confirm === 'rotate'}
        onOpenChange={close}
        title={`Rotate ${credential.name}?`}
        description="A new secret replaces the current one, which stops working at once. Update every application that uses this key."
        confirmLabel="Rotate key"
        busy={rotate.isPending}
        error={rotate.error}
        onConfirm={() => rotate.mutate()}
      />
      <ConfirmDialog
        open={confirm === 'revoke'}
        onOpenChange={close}
        title={`Revoke ${credential.name}?`}
        description="The key stops working at once and cannot be restored. Applications using it will get 401 errors."
        confirmLabel="Revoke key"
        danger
        busy={revoke.isPending}
        error={revoke.error}
        onConfirm={() => revoke.mutate()}
      />
    </div>
  );
}
