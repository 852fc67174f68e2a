import { Button, CopyButton, Dialog } from '../../ui';
import type { ShownSecret } from './types';

/**
 * The one time a secret is visible: after a create or a rotate. The parent drops the secret when this
 * closes, so it is not in the page, the cache or the list afterwards.
 */
export function SecretDialog({ shown, onClose }: { shown: ShownSecret | null; onClose: () => void }) {
  return (
    <Dialog
      open={shown !== null}
      onOpenChange={(open) => !open && onClose()}
      title={shown?.kind === 'rotated' ? `New secret for ${shown.name}` : `API key ${shown?.name ?? ''} created`}
      description="Copy the secret now and keep it somewhere safe. It is shown only this once: it cannot be displayed again, only rotated."
      footer={
        <Button variant="primary" onClick={onClose}>
          I have saved it
        </Button>
      }
    >
      {shown && (
        <div className="cred-secret">
          <p className="banner cred-warning" role="note">
            <strong>Warning:</strong> anyone with this secret can use the key. Do not paste it into chats or commit it.
          </p>
          <label htmlFor="cred-secret-value" className="cred-secret-label">
            Secret
          </label>
          <input
            id="cred-secret-value"
            className="cred-secret-value"
            readOnly
            value={shown.secret}
            onFocus={(e) => e.target.select()}
            data-testid="secret-value"
          />
          <CopyButton value={shown.secret} label="Copy secret" />
        </div>
      )}
    </Dialog>
  );
}
