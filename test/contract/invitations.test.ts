import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedInvitationsPort } from '../../adapters/embedded/invitations.js';
import { createEmbeddedTenantsPort } from '../../adapters/embedded/tenants.js';
import { createEmbeddedUsersPort } from '../../adapters/embedded/users.js';
import { createMongoTenantsPort, createMongoUsersPort } from '../../adapters/mongo/identity.js';
import { createMongoInvitationsPort } from '../../adapters/mongo/invitations.js';
import type { InvitationsPort } from '../../server/ports/invitations.js';
import type { TenantsPort } from '../../server/ports/tenants.js';
import type { UsersPort } from '../../server/ports/users.js';

interface Ports {
  invitations: InvitationsPort;
  tenants: TenantsPort;
  users: UsersPort;
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

    const newUser = async () => {
      const user = await p.users.create({ id: randomUUID(), email: `u-${randomUUID()}@example.com`, name: null, passwordHash: null, createdAt: T0 });
      if (!user) throw new Error('user not created');
      return user;
    };
    const newTenant = async () => {
      const owner = await newUser();
      const tenant = await p.tenants.create({ id: randomUUID(), name: 'T', plan: 'free', status: 'active', createdAt: T0 }, { userId: owner.id, isDefault: true, createdAt: T0 });
      return { tenant, owner };
    };
    const invite = (tenantId: string, email: string, role: 'member' | 'admin' | 'viewer' = 'member', minutes = 0, invitedBy = randomUUID()) =>
      p.invitations.invite(tenantId, { id: randomUUID(), email, role, invitedBy, createdAt: at(minutes), expiresAt: at(minutes + 60) });

    it('stores a pending invitation and lists it for its email (any case) until it expires', async () => {
      const { tenant } = await newTenant();
      const email = `x-${randomUUID()}@example.com`;
      const inv = await invite(tenant.id, email.toUpperCase());
      expect(inv).toMatchObject({ tenantId: tenant.id, email, role: 'member', status: 'pending', createdAt: at(0), expiresAt: at(60), decidedAt: null });
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
      expect(await p.invitations.accept(inv.id, { email: `someone-${user.email}`, userId: user.id }, at(1))).toEqual({ ok: false, reason: 'not_found' });
      expect(await p.tenants.membership(tenant.id, user.id)).toBeNull();
      const ok = await p.invitations.accept(inv.id, { email: user.email, userId: user.id }, at(1));
      expect(ok).toMatchObject({ ok: true, invitation: { id: inv.id, status: 'accepted', decidedAt: at(1) } });
      expect(await p.tenants.membership(tenant.id, user.id)).toMatchObject({ role: 'viewer', isDefault: false });
      expect(await p.invitations.accept(inv.id, { email: user.email, userId: user.id }, at(2))).toEqual({ ok: false, reason: 'not_pending' });
      expect(await p.invitations.listPendingForEmail(user.email, at(2))).toEqual([]);
      // Once accepted, a new invitation for the same email is a new one.
      expect((await invite(tenant.id, user.email)).id).not.toBe(inv.id);
      expect(await p.invitations.accept(randomUUID(), { email: user.email, userId: user.id }, at(1))).toEqual({ ok: false, reason: 'not_found' });
    });

    it('refuses an expired invitation and leaves an existing membership (and the invitation) alone', async () => {
      const { tenant, owner } = await newTenant();
      const user = await newUser();
      const late = await invite(tenant.id, user.email, 'admin');
      expect(await p.invitations.accept(late.id, { email: user.email, userId: user.id }, at(60))).toEqual({ ok: false, reason: 'expired' });
      expect(await p.tenants.membership(tenant.id, user.id)).toBeNull();
      const mine = await invite(tenant.id, owner.email, 'viewer');
      expect(await p.invitations.accept(mine.id, { email: owner.email, userId: owner.id }, at(1))).toEqual({ ok: false, reason: 'already_member' });
      expect((await p.tenants.membership(tenant.id, owner.id))?.role).toBe('owner');
      expect((await p.invitations.get(mine.id))?.status).toBe('pending');
    });

    it('declines once, for the invited email only', async () => {
      const { tenant } = await newTenant();
      const email = `x-${randomUUID()}@example.com`;
      const inv = await invite(tenant.id, email);
      expect(await p.invitations.decline(inv.id, `y${email}`, at(1))).toEqual({ ok: false, reason: 'not_found' });
      expect(await p.invitations.decline(inv.id, email, at(1))).toMatchObject({ ok: true, invitation: { status: 'declined', decidedAt: at(1) } });
      expect(await p.invitations.decline(inv.id, email, at(2))).toEqual({ ok: false, reason: 'not_pending' });
      expect(await p.invitations.listPendingForEmail(email, at(2))).toEqual([]);
    });
  });
}

contract('embedded (libsql)', async () => {
  const db = openInMemoryDatabase();
  return {
    ports: { invitations: createEmbeddedInvitationsPort(db), tenants: createEmbeddedTenantsPort(db), users: createEmbeddedUsersPort(db) },
    close: async () => void db.close(),
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  contract('mongo', async () => {
    const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5000 });
    await client.connect();
    const db = client.db(`tm_contract_invitations_${process.pid}_${Date.now()}`);
    return {
      ports: { invitations: await createMongoInvitationsPort(db), tenants: await createMongoTenantsPort(db), users: await createMongoUsersPort(db) },
      close: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe('invitations port contract: mongo', () => {
    it.skip('skipped: set MONGODB_URL to run the contract against MongoDB', () => {});
  });
}
