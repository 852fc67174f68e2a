import { useState, type FormEvent } from 'react';
import { client } from '../../api';
import { Button, Select, TextField } from '../../ui';
import { assignableRoles, isPromotion, type RoleName } from './roles';
import type { useMemberCall } from './useMemberCall';

/** Invite by email with a role; owner or admin invitations ask for a step-up first. */
export function InviteForm({ myRole, calls }: { myRole: string | undefined; calls: ReturnType<typeof useMemberCall> }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<RoleName>('member');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invited = email.trim();
    const ok = await calls.run(
      isPromotion(role) ? 'members.promote' : null,
      (opts) => client.portal.invite.mutate({ email: invited, role }, opts),
      `Invitation sent to ${invited} as ${role}.`,
    );
    if (ok) setEmail('');
  };
  return (
    <section className="card" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <form className="form mb-invite" onSubmit={(e) => void submit(e)}>
        <TextField label="Email" type="email" autoComplete="off" value={email} onChange={setEmail} required />
        <Select label="Role" value={role} options={assignableRoles(myRole).map((r) => ({ value: r, label: r }))} onChange={setRole} />
        <div>
          <Button type="submit" variant="primary" busy={calls.busy}>
            Send invitation
          </Button>
        </div>
      </form>
      <p className="field-hint">They join by accepting the invitation. Inviting an owner or admin asks you to confirm it&apos;s you.</p>
    </section>
  );
}
