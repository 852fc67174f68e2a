import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addToTenant, bearer, stepUpToken, type SignedUpUser } from '../support/auth.js';
import { membershipServer } from '../support/membership-server.js';
import { http } from '../support/server.js';

/**
 * The tenant's side of invitations: it lists and cancels its pending ones, and an invitation carries
 * its inviter's authority (void once the inviter could no longer grant its role; a pending invitation
 * is only replaced by someone who could have made it).
 */
let nowMs = Date.now();
const TTL_SECONDS = 3600;
const server = membershipServer(() => nowMs, TTL_SECONDS);

const up = server.up;
const call = (u: SignedUpUser, method: string, url: string, tenantId: string, body?: unknown, extra: Record<string, string> = {}) =>
  http(server.url, method, url, { headers: { ...bearer(u.accessToken, tenantId), ...extra }, body });
const promote = (u: SignedUpUser, tenantId: string) => server.stepUpHeader(u, 'members.promote', tenantId);
const invite = async (inviter: SignedUpUser, tenantId: string, email: string, role: string) =>
  call(
    inviter,
    'POST',
    '/auth/members',
    tenantId,
    { email, role },
    role === 'owner' || role === 'admin' ? await promote(inviter, tenantId) : {},
  );
const listed = async (u: SignedUpUser, tenantId: string) =>
  (await call(u, 'GET', '/auth/members/invitations', tenantId)).body.invitations as Array<Record<string, unknown>>;
const events = async (owner: SignedUpUser) =>
  (await call(owner, 'GET', '/auth/audit?limit=20', owner.tenantId)).body.events as Array<{
    type: string;
    actor: Record<string, unknown>;
    details: Record<string, unknown>;
  }>;

describe('GET /auth/members/invitations and DELETE /auth/members/invitations/{invitation_id}', () => {
  it('lists the tenant’s pending, unexpired invitations (oldest first) to owners and admins, not to members', async () => {
    const [owner, admin, member] = await Promise.all([up(), up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    await addToTenant(server.url, owner, member, 'member');
    const first = await invite(owner, owner.tenantId, `a-${randomUUID()}@example.test`, 'viewer');
    nowMs += 1_000;
    const second = await invite(admin, owner.tenantId, `b-${randomUUID()}@example.test`, 'admin');
    expect([first.status, second.status]).toEqual([202, 202]);

    const res = await call(admin, 'GET', '/auth/members/invitations', owner.tenantId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      invitations: [
        { ...first.body, created_at: new Date(nowMs - 1_000).toISOString(), invited_by: owner.userId },
        { ...second.body, created_at: new Date(nowMs).toISOString(), invited_by: admin.userId },
      ],
    });
    expect((await call(member, 'GET', '/auth/members/invitations', owner.tenantId)).status).toBe(403);
    // Another tenant's invitations are not listed.
    expect(await listed(member, member.tenantId)).toEqual([]);
    nowMs += TTL_SECONDS * 1000;
    expect(await listed(owner, owner.tenantId)).toEqual([]);
  });

  it('cancelling ends the invitation (the invitee can no longer see or accept it), is audited, and answers 409 the second time', async () => {
    const [owner, invitee] = await Promise.all([up(), up()]);
    const sent = await invite(owner, owner.tenantId, invitee.email, 'member');
    const res = await call(owner, 'DELETE', `/auth/members/invitations/${sent.body.invitation_id}`, owner.tenantId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ invitation_id: sent.body.invitation_id, status: 'cancelled' });
    expect(await listed(owner, owner.tenantId)).toEqual([]);
    expect((await call(invitee, 'GET', '/auth/invitations', invitee.tenantId)).body.invitations).toEqual([]);
    expect((await call(invitee, 'POST', `/auth/invitations/${sent.body.invitation_id}/accept`, invitee.tenantId)).status).toBe(409);
    expect((await events(owner))[0]).toMatchObject({
      type: 'member.invite_cancel',
      actor: { user_id: owner.userId },
      details: { email: invitee.email, role: 'member', reason: 'cancelled' },
    });
    expect((await call(owner, 'DELETE', `/auth/members/invitations/${sent.body.invitation_id}`, owner.tenantId)).status).toBe(409);
    // Inviting the email again makes a new invitation.
    expect((await invite(owner, owner.tenantId, invitee.email, 'member')).body.invitation_id).not.toBe(sent.body.invitation_id);
  });

  it('an admin cannot cancel an owner invitation (403); unknown and other tenants’ ids are 404; members 403; bad ids 400', async () => {
    const [owner, admin, member, stranger] = await Promise.all([up(), up(), up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    await addToTenant(server.url, owner, member, 'member');
    const ownerInvite = await invite(owner, owner.tenantId, `o-${randomUUID()}@example.test`, 'owner');
    const plain = await invite(owner, owner.tenantId, `p-${randomUUID()}@example.test`, 'viewer');
    const foreign = await invite(stranger, stranger.tenantId, `f-${randomUUID()}@example.test`, 'viewer');
    const del = (u: SignedUpUser, id: string) => call(u, 'DELETE', `/auth/members/invitations/${id}`, owner.tenantId);

    const refused = await del(admin, ownerInvite.body.invitation_id);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect((await del(member, plain.body.invitation_id)).status).toBe(403);
    expect((await del(owner, foreign.body.invitation_id)).status).toBe(404);
    expect((await del(owner, randomUUID())).status).toBe(404);
    expect((await del(owner, 'not-an-id')).status).toBe(400);
    expect((await listed(owner, owner.tenantId)).map((i) => i.invitation_id)).toEqual([
      ownerInvite.body.invitation_id,
      plain.body.invitation_id,
    ]);
    expect((await listed(stranger, stranger.tenantId)).map((i) => i.invitation_id)).toEqual([foreign.body.invitation_id]);
    expect((await del(admin, plain.body.invitation_id)).status).toBe(200);
    expect((await del(owner, ownerInvite.body.invitation_id)).status).toBe(200);
  });
});

describe('an invitation carries its inviter’s authority', () => {
  it('an admin who invites their own second account as admin and is then removed: accepting answers 409 and adds no one', async () => {
    const [owner, admin, second] = await Promise.all([up(), up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    const sent = await invite(admin, owner.tenantId, second.email, 'admin');
    expect(sent.status).toBe(202);
    const removal = { 'x-step-up-token': await stepUpToken(server.url, owner, 'members.remove') };
    expect((await call(owner, 'DELETE', `/auth/members/${admin.userId}`, owner.tenantId, undefined, removal)).status).toBe(200);

    const accepted = await call(second, 'POST', `/auth/invitations/${sent.body.invitation_id}/accept`, second.tenantId);
    expect(accepted.status).toBe(409);
    expect(accepted.body.message).toMatch(/no longer valid/);
    const members = (await call(owner, 'GET', '/auth/members', owner.tenantId)).body.members.map((m: { user_id: string }) => m.user_id);
    expect(members).toEqual([owner.userId]);
    // Marked so: gone from both lists, and audited with its reason.
    expect((await call(second, 'GET', '/auth/invitations', second.tenantId)).body.invitations).toEqual([]);
    expect(await listed(owner, owner.tenantId)).toEqual([]);
    expect((await events(owner)).find((e) => e.type === 'member.invite_cancel')).toMatchObject({
      actor: { user_id: second.userId },
      details: { role: 'admin', reason: 'inviter_lost_authority', invited_by: admin.userId },
    });
  });

  it('an inviter demoted below the invited role voids it too; one still able to grant it does not', async () => {
    const [owner, admin, viewerInvitee, adminInvitee] = await Promise.all([up(), up(), up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    const asViewer = await invite(admin, owner.tenantId, viewerInvitee.email, 'viewer');
    const asAdmin = await invite(admin, owner.tenantId, adminInvitee.email, 'admin');
    expect((await call(owner, 'PUT', `/auth/members/${admin.userId}`, owner.tenantId, { role: 'member' })).status).toBe(200);
    expect((await call(adminInvitee, 'POST', `/auth/invitations/${asAdmin.body.invitation_id}/accept`, adminInvitee.tenantId)).status).toBe(
      409,
    );
    expect(
      (await call(viewerInvitee, 'POST', `/auth/invitations/${asViewer.body.invitation_id}/accept`, viewerInvitee.tenantId)).status,
    ).toBe(409); // a member grants nothing
    // Re-promoted, the same admin's new invitations work again.
    expect(
      (await call(owner, 'PUT', `/auth/members/${admin.userId}`, owner.tenantId, { role: 'admin' }, await promote(owner, owner.tenantId)))
        .status,
    ).toBe(200);
    const again = await invite(admin, owner.tenantId, viewerInvitee.email, 'viewer');
    expect(
      (await call(viewerInvitee, 'POST', `/auth/invitations/${again.body.invitation_id}/accept`, viewerInvitee.tenantId)).body,
    ).toEqual({ tenant_id: owner.tenantId, role: 'viewer' });
  });

  it('a non-owner cannot overwrite a pending owner invitation with a lesser role (403, unchanged); an owner can', async () => {
    const [owner, admin] = await Promise.all([up(), up()]);
    await addToTenant(server.url, owner, admin, 'admin');
    const email = `owner-to-be-${randomUUID()}@example.test`;
    const sent = await invite(owner, owner.tenantId, email, 'owner');
    expect(sent.status).toBe(202);
    for (const role of ['viewer', 'member', 'admin']) {
      const res = await invite(admin, owner.tenantId, email, role);
      expect(res.status, role).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    expect(await listed(owner, owner.tenantId)).toEqual([
      expect.objectContaining({ invitation_id: sent.body.invitation_id, role: 'owner', invited_by: owner.userId }),
    ]);
    // Once it has expired it is dead, and anyone who may invite replaces it.
    nowMs += TTL_SECONDS * 1000;
    const replaced = await invite(admin, owner.tenantId, email, 'member');
    expect(replaced.status).toBe(202);
    expect(replaced.body).toMatchObject({ invitation_id: sent.body.invitation_id, role: 'member' });
    // The owner may change it either way.
    expect((await invite(owner, owner.tenantId, email, 'viewer')).body).toMatchObject({
      invitation_id: sent.body.invitation_id,
      role: 'viewer',
    });
  });
});
