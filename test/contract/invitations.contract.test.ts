import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedInvitationStore } from '../../adapters/embedded/invitations.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';
import { createEmbeddedUserStore } from '../../adapters/embedded/users.js';
import { createMongoTenantStore, createMongoUserStore } from '../../adapters/mongo/identity.js';
import { createMongoInvitationStore } from '../../adapters/mongo/invitations.js';
import type { InvitationStore } from '../../server/ports/invitations.js';
import type { RoleName } from '../../server/services/roles.js';
import type { TenantStore } from '../../server/ports/tenants.js';
import type { UserStore } from '../../server/ports/users.js';
import { newTenant as createTenant, newUser as createUser, onEmbeddedAndMongo } from '../support/identity-stores.js';

interface Ports {
  invitations: InvitationStore;
  tenants: TenantStore;
  users: UserStore;
}

const T0 = '2030-01-01T00:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

/** One behavioural suite for every adapter of the invitations port. */
function contract(name: string, open: () => Promise<{ ports: Ports; close(): Promise<void> }>) {
  describe(`invitations port contract: ${name}`, () => {
    let p: Ports;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ ports: p, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    const newUser = () => createUser(p.users, { createdAt: T0 });
    /** Each tenant's owner: the default inviter (an invitation is valid only while its inviter may grant its role). */
    const ownerOf = new Map<string, string>();
    const newTenant = async () => {
      const owner = await newUser();
      const tenant = await createTenant(p.tenants, owner.id, T0);
      ownerOf.set(tenant.id, owner.id);
      return { tenant, owner };
    };
    const everyRole: RoleName[] = ['owner', 'admin', 'member', 'viewer'];
    const tryInvite = (tenantId: string, email: string, role: RoleName, minutes: number, invitedBy: string, replaceable: RoleName[]) =>
      p.invitations.invite(
        tenantId,
        { id: randomUUID(), email, role, invitedBy, createdAt: at(minutes), expiresAt: at(minutes + 60) },
        replaceable,
      );
    const invite = async (tenantId: string, email: string, role: RoleName = 'member', minutes = 0, invitedBy = ownerOf.get(tenantId)!) => {
      const result = await tryInvite(tenantId, email, role, minutes, invitedBy, everyRole);
      if (!result.ok) throw new Error(`invite refused: ${result.reason}`);
      return result.invitation;
    };

    it('stores a pending invitation and lists it for its email (any case) until it expires', async () => {
      const { tenant } = await newTenant();
      const email = `x-${randomUUID()}@example.com`;
      const inv = await invite(tenant.id, email.toUpperCase());
      expect(inv).toMatchObject({
        tenantId: tenant.id,
        email,
        role: 'member',
        status: 'pending',
        createdAt: at(0),
        expiresAt: at(60),
        decidedAt: null,
      });
      expect(await p.invitations.get(inv.id)).toEqual(inv);
      expect(await p.invitations.listPendingForEmail(email.toUpperCase(), at(59))).toEqual([inv]);
      expect(await p.invitations.listPendingForEmail(email, at(60))).toEqual([]);
      expect(await p.invitations.listPendingForEmail(`other-${email}`, at(1))).toEqual([]);
      expect(await p.invitations.get(randomUUID())).toBeNull();
    });

    it('keeps one pending invitation per tenant and email: inviting again refreshes role and expiry under the same id', async () => {
      const { tenant } = await newTenant();
      const other = await newTenant();
      const email = `x-${randomUUID()}@example.com`;
      const first = await invite(tenant.id, email, 'member', 0);
      const again = await invite(tenant.id, email, 'admin', 30);
      expect(again).toMatchObject({ id: first.id, role: 'admin', createdAt: at(0), expiresAt: at(90) });
      const elsewhere = await invite(other.tenant.id, email, 'viewer', 1);
      expect(elsewhere.id).not.toBe(first.id);
      expect((await p.invitations.listPendingForEmail(email, at(70))).map((i) => i.id)).toEqual([first.id]);
      expect((await p.invitations.listPendingForEmail(email, at(10))).map((i) => i.id)).toEqual([first.id, elsewhere.id]);
    });

    it('accepts once, for the invited email only, adding the membership with the invitation’s role', async () => {
      const { tenant } = await newTenant();
      const user = await newUser();
      const inv = await invite(tenant.id, user.email, 'viewer');
      expect(await p.invitations.accept(inv.id, { email: `someone-${user.email}`, userId: user.id }, at(1))).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await p.tenants.membership(tenant.id, user.id)).toBeNull();
      const ok = await p.invitations.accept(inv.id, { email: user.email, userId: user.id }, at(1));
      expect(ok).toMatchObject({ ok: true, invitation: { id: inv.id, status: 'accepted', decidedAt: at(1) } });
      expect(await p.tenants.membership(tenant.id, user.id)).toMatchObject({ role: 'viewer', isDefault: false });
      expect(await p.invitations.accept(inv.id, { email: user.email, userId: user.id }, at(2))).toEqual({
        ok: false,
        reason: 'not_pending',
      });
      expect(await p.invitations.listPendingForEmail(user.email, at(2))).toEqual([]);
      // Once accepted, a new invitation for the same email is a new one.
      expect((await invite(tenant.id, user.email)).id).not.toBe(inv.id);
      expect(await p.invitations.accept(randomUUID(), { email: user.email, userId: user.id }, at(1))).toEqual({
        ok: false,
        reason: 'not_found',
      });
    });

    it('refuses an expired invitation and leaves an existing membership (and the invitation) alone', async () => {
      const { tenant, owner } = await newTenant();
      const user = await newUser();
      const late = await invite(tenant.id, user.email, 'admin');
      expect(await p.invitations.accept(late.id, { email: user.email, userId: user.id }, at(60))).toEqual({ ok: false, reason: 'expired' });
      expect(await p.tenants.membership(tenant.id, user.id)).toBeNull();
      const mine = await invite(tenant.id, owner.email, 'viewer');
      expect(await p.invitations.accept(mine.id, { email: owner.email, userId: owner.id }, at(1))).toEqual({
        ok: false,
        reason: 'already_member',
      });
      expect((await p.tenants.membership(tenant.id, owner.id))?.role).toBe('owner');
      expect((await p.invitations.get(mine.id))?.status).toBe('pending');
    });

    it('refreshes a pending invitation only when its role is one the new inviter could grant, or it has expired', async () => {
      const { tenant } = await newTenant();
      const email = `x-${randomUUID()}@example.com`;
      const first = await invite(tenant.id, email, 'owner', 0);
      const refused = await tryInvite(tenant.id, email, 'viewer', 10, randomUUID(), ['admin', 'member', 'viewer']);
      expect(refused).toEqual({ ok: false, reason: 'not_replaceable', existing: first });
      expect(await p.invitations.get(first.id)).toEqual(first);
      const allowed = await tryInvite(tenant.id, email, 'viewer', 20, ownerOf.get(tenant.id)!, everyRole);
      expect(allowed).toMatchObject({ ok: true, invitation: { id: first.id, role: 'viewer', expiresAt: at(80) } });
      const byAdmin = randomUUID();
      const upgraded = await tryInvite(tenant.id, email, 'owner', 30, ownerOf.get(tenant.id)!, everyRole);
      expect(upgraded.ok).toBe(true);
      // Expired (at 90): dead, so anyone who may invite replaces it, keeping its id.
      const late = await tryInvite(tenant.id, email, 'member', 90, byAdmin, ['admin', 'member', 'viewer']);
      expect(late).toMatchObject({ ok: true, invitation: { id: first.id, role: 'member', invitedBy: byAdmin, expiresAt: at(150) } });
    });

    it('lists a tenant’s pending, unexpired invitations, oldest first, and nothing of other tenants', async () => {
      const { tenant } = await newTenant();
      const other = await newTenant();
      const a = await invite(tenant.id, `a-${randomUUID()}@example.com`, 'viewer', 0);
      const b = await invite(tenant.id, `b-${randomUUID()}@example.com`, 'admin', 5);
      await invite(other.tenant.id, `c-${randomUUID()}@example.com`, 'viewer', 1);
      const user = await newUser();
      const used = await invite(tenant.id, user.email, 'viewer', 2);
      expect((await p.invitations.accept(used.id, { email: user.email, userId: user.id }, at(3))).ok).toBe(true);
      expect(await p.invitations.listPendingForTenant(tenant.id, at(10))).toEqual([a, b]);
      expect(await p.invitations.listPendingForTenant(tenant.id, at(60))).toEqual([b]);
      expect(await p.invitations.listPendingForTenant(randomUUID(), at(10))).toEqual([]);
    });

    it('cancels a pending invitation of the tenant once, only while it has the role the caller checked', async () => {
      const { tenant } = await newTenant();
      const other = await newTenant();
      const email = `x-${randomUUID()}@example.com`;
      const inv = await invite(tenant.id, email, 'member', 0);
      expect(await p.invitations.cancel(other.tenant.id, inv.id, { expectedRole: 'member', at: at(1) })).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await p.invitations.cancel(tenant.id, randomUUID(), { expectedRole: 'member', at: at(1) })).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await p.invitations.cancel(tenant.id, inv.id, { expectedRole: 'viewer', at: at(1) })).toEqual({
        ok: false,
        reason: 'role_changed',
      });
      expect((await p.invitations.get(inv.id))?.status).toBe('pending');
      const done = await p.invitations.cancel(tenant.id, inv.id, { expectedRole: 'member', at: at(2) });
      expect(done).toEqual({ ok: true, invitation: { ...inv, status: 'cancelled', decidedAt: at(2) } });
      expect(await p.invitations.cancel(tenant.id, inv.id, { expectedRole: 'member', at: at(3) })).toEqual({
        ok: false,
        reason: 'not_pending',
      });
      expect(await p.invitations.listPendingForEmail(email, at(3))).toEqual([]);
      expect(await p.invitations.accept(inv.id, { email, userId: randomUUID() }, at(3))).toEqual({ ok: false, reason: 'not_pending' });
      // The email may be invited again: a new invitation.
      expect((await invite(tenant.id, email, 'member', 4)).id).not.toBe(inv.id);
    });

    it('voids an invitation at acceptance when its inviter is no longer a member who may grant its role', async () => {
      const { tenant } = await newTenant();
      const admin = await newUser();
      await p.tenants.addMember(tenant.id, { userId: admin.id, role: 'admin', isDefault: false, createdAt: T0 });
      const [a, b, c] = [await newUser(), await newUser(), await newUser()];
      const asAdmin = await invite(tenant.id, a.email, 'admin', 0, admin.id);
      const asViewer = await invite(tenant.id, b.email, 'viewer', 0, admin.id);
      const fromStranger = await invite(tenant.id, c.email, 'viewer', 0, randomUUID());
      expect(await p.invitations.accept(fromStranger.id, { email: c.email, userId: c.id }, at(1))).toEqual({
        ok: false,
        reason: 'inviter_lost_authority',
        invitation: { ...fromStranger, status: 'cancelled', decidedAt: at(1) },
      });
      expect(await p.tenants.membership(tenant.id, c.id)).toBeNull();
      // Demoted to member: grants nothing any more.
      expect((await p.tenants.changeRole(tenant.id, admin.id, { from: 'admin', to: 'member', at: at(2) })).ok).toBe(true);
      expect(await p.invitations.accept(asAdmin.id, { email: a.email, userId: a.id }, at(3))).toMatchObject({
        ok: false,
        reason: 'inviter_lost_authority',
      });
      expect((await p.invitations.get(asAdmin.id))?.status).toBe('cancelled');
      expect(await p.invitations.accept(asAdmin.id, { email: a.email, userId: a.id }, at(4))).toEqual({ ok: false, reason: 'not_pending' });
      // Admin again: may grant viewer, so that invitation still stands.
      expect((await p.tenants.changeRole(tenant.id, admin.id, { from: 'member', to: 'admin', at: at(5) })).ok).toBe(true);
      expect(await p.invitations.accept(asViewer.id, { email: b.email, userId: b.id }, at(6))).toMatchObject({ ok: true });
      expect((await p.tenants.membership(tenant.id, b.id))?.role).toBe('viewer');
    });

    it('declines once, for the invited email only', async () => {
      const { tenant } = await newTenant();
      const email = `x-${randomUUID()}@example.com`;
      const inv = await invite(tenant.id, email);
      expect(await p.invitations.decline(inv.id, `y${email}`, at(1))).toEqual({ ok: false, reason: 'not_found' });
      expect(await p.invitations.decline(inv.id, email, at(1))).toMatchObject({
        ok: true,
        invitation: { status: 'declined', decidedAt: at(1) },
      });
      expect(await p.invitations.decline(inv.id, email, at(2))).toEqual({ ok: false, reason: 'not_pending' });
      expect(await p.invitations.listPendingForEmail(email, at(2))).toEqual([]);
    });
  });
}

onEmbeddedAndMongo('invitations port contract', contract, {
  embedded: (db) => ({
    invitations: createEmbeddedInvitationStore(db),
    tenants: createEmbeddedTenantStore(db),
    users: createEmbeddedUserStore(db),
  }),
  mongo: async (db) => ({
    invitations: await createMongoInvitationStore(db),
    tenants: await createMongoTenantStore(db),
    users: await createMongoUserStore(db),
  }),
  mongoDbName: 'tm_contract_invitations',
});
