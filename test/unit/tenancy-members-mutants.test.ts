import { beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedApiKeyStore } from '../../adapters/embedded/api-key-store.js';
import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { createEmbeddedBreakGlassStore } from '../../adapters/embedded/break-glass.js';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedInvitationStore } from '../../adapters/embedded/invitations.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';
import { createEmbeddedUserStore } from '../../adapters/embedded/users.js';
import { createLogger } from '../../server/logger.js';
import type { AuditEventRecord } from '../../server/ports/audit.js';
import type { InvitationStore } from '../../server/ports/invitations.js';
import type { TenantStore } from '../../server/ports/tenants.js';
import { createKeyedBudget } from '../../server/services/address-budget.js';
import { apiKeyAuditSink, createApiKeyService, type ApiKeyService } from '../../server/services/api-keys.js';
import { createAuditService, type AuditService } from '../../server/services/audit.js';
import { createBreakGlassService } from '../../server/services/break-glass.js';
import { isoAt } from '../../server/services/clock.js';
import { createMembersService, type MembersService } from '../../server/services/members.js';
import { createTenantsService, type TenantActor } from '../../server/services/tenants.js';
import { tenancyFixtures } from '../support/identity-stores.js';
import { createInProcessAttemptCounters } from '../support/in-process-attempt-counters.js';

// The members and invitations services over the real embedded ports, the real API-key, audit and
// break-glass services, and a clock the tests move. Written to kill the mutants the other suites let
// live (see docs/mutation-testing.md): who may remove whom, the last-owner rule, the answers when a
// concurrent request changed the record between the service's read and its write, and the exact audit
// records of invitations and removals. A concurrent request is played by a hook run right after one of
// the service's reads of the real store.

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const TTL_SECONDS = 3600;
const meta = { ip: '203.0.113.9', userAgent: 'members-mutants/1' };
const iso = isoAt;

type Read = 'getMember' | 'membership' | 'getInvitation';

let clock: number;
let ports: { users: ReturnType<typeof createEmbeddedUserStore>; tenants: TenantStore; invitations: InvitationStore };
let audit: AuditService;
let apiKeys: ApiKeyService;
let members: MembersService;
/** Run once, right after the service's next read of that name: what a concurrent request does in between. */
let after: Partial<Record<Read, () => Promise<void>>>;

async function then(read: Read): Promise<void> {
  const hook = after[read];
  delete after[read];
  await hook?.();
}

beforeEach(() => {
  clock = T0;
  after = {};
  const db = openInMemoryDatabase();
  const now = () => clock;
  const logger = createLogger('silent');
  ports = { users: createEmbeddedUserStore(db), tenants: createEmbeddedTenantStore(db), invitations: createEmbeddedInvitationStore(db) };
  const probedTenants: TenantStore = {
    ...ports.tenants,
    getMember: async (tenantId, userId) => {
      const found = await ports.tenants.getMember(tenantId, userId);
      await then('getMember');
      return found;
    },
    membership: async (tenantId, userId) => {
      const found = await ports.tenants.membership(tenantId, userId);
      await then('membership');
      return found;
    },
  };
  const probedInvitations: InvitationStore = {
    ...ports.invitations,
    get: async (id) => {
      const found = await ports.invitations.get(id);
      await then('getInvitation');
      return found;
    },
  };
  audit = createAuditService({ audit: createEmbeddedAuditStore(db), logger, clock: now });
  apiKeys = createApiKeyService({
    store: createEmbeddedApiKeyStore(db),
    tenants: ports.tenants,
    logger,
    audit: apiKeyAuditSink(audit, logger),
    clock: now,
  });
  const counters = createInProcessAttemptCounters();
  const budget = (keyPrefix: string) =>
    createKeyedBudget({ keyPrefix, perWindow: 100, windowSeconds: 3600, what: 'invitations' }, counters);
  members = createMembersService({
    tenants: probedTenants,
    users: ports.users,
    invitations: probedInvitations,
    audit,
    // Step-up itself is tested against the real service in test/e2e/members.test.ts; here it is granted.
    stepUp: { verifyStepUp: async () => {} },
    apiKeys,
    breakGlass: createBreakGlassService({ breakGlass: createEmbeddedBreakGlassStore(db), audit, maxMinutes: 60, clock: now }),
    invitationBudgets: { perUser: budget('u'), perTenant: budget('t') },
    invitationTtlSeconds: TTL_SECONDS,
    clock: now,
  });
});

const { newUser, tenantWith } = tenancyFixtures(() => ({
  users: ports.users,
  tenants: ports.tenants,
  tenantsService: createTenantsService({ tenants: ports.tenants, audit, clock: () => clock }),
  usersCreatedAt: iso(T0),
  membersJoinedAt: T0,
  meta,
}));

const fails = (p: Promise<unknown>, code: string) => expect(p).rejects.toMatchObject({ name: 'AppError', code });

/** The tenant's audit events of one type, oldest first, reduced to what an event promises. */
async function recorded(tenantId: string, type: string) {
  const { events } = await audit.list(tenantId, { limit: 100, offset: 0 });
  return events
    .filter((e) => e.type === type)
    .reverse()
    .map(({ actor, ip, userAgent, target, details }: AuditEventRecord) => ({ actor, ip, userAgent, target, details }));
}

const keyOf = async (actor: TenantActor, name = 'k') =>
  (await apiKeys.create({ tenantId: actor.tenantId, userId: actor.userId, role: actor.role }, { name, scopes: ['memories:read'] })).key
    .keyId;
const activeKeysOf = async (tenantId: string, userId: string) =>
  (await apiKeys.list(tenantId)).filter((k) => k.createdBy === userId && k.status === 'active').map((k) => k.keyId);
const roleOf = async (tenantId: string, userId: string) => (await ports.tenants.membership(tenantId, userId))?.role ?? null;

describe('role changes and removals', () => {
  it('a role change is stamped with the injected clock', async () => {
    const { tenantId, actors } = await tenantWith('member');
    const [owner, member] = actors as [TenantActor, TenantActor];
    clock = T0 + 90_000;
    expect(await members.changeRole(owner, member.userId, 'viewer', null, meta)).toMatchObject({ role: 'viewer', roleSince: iso(clock) });
    expect(await ports.tenants.membership(tenantId, member.userId)).toMatchObject({ role: 'viewer', roleSince: iso(T0 + 90_000) });
  });

  it('a member who left between the read and the write: a role change answers 404, not 409, and records nothing', async () => {
    const { tenantId, actors } = await tenantWith('member');
    const [owner, member] = actors as [TenantActor, TenantActor];
    after.getMember = async () => void (await ports.tenants.removeMember(tenantId, member.userId, 'member'));
    await fails(members.changeRole(owner, member.userId, 'viewer', null, meta), 'NOT_FOUND');
    expect(await recorded(tenantId, 'member.role_change')).toEqual([]);
  });

  it('a member who left between the read and the write: a removal answers 404, not 409, and only the leaving is recorded', async () => {
    const { tenantId, actors } = await tenantWith('admin', 'member');
    const [, admin, member] = actors as [TenantActor, TenantActor, TenantActor];
    after.getMember = async () => void (await members.remove(member, member.userId, null, meta));
    await fails(members.remove(admin, member.userId, null, meta), 'NOT_FOUND');
    expect((await recorded(tenantId, 'member.remove')).map((e) => e.actor)).toEqual([{ userId: member.userId }]);
  });

  it('a member may not remove others, even someone no longer a member: 403, and that user’s leftover key stays', async () => {
    const { tenantId, actors } = await tenantWith('admin', 'member', 'viewer');
    const [, admin, member, viewer] = actors as [TenantActor, TenantActor, TenantActor, TenantActor];
    const key = await keyOf(viewer);
    // A removal that ended the membership and then failed before its last sweep leaves the key behind.
    await ports.tenants.removeMember(tenantId, viewer.userId, 'viewer');
    await fails(members.remove(member, viewer.userId, null, meta), 'FORBIDDEN');
    expect(await activeKeysOf(tenantId, viewer.userId)).toEqual([key]);
    // An admin asking again finishes it: 404, and the key goes.
    await fails(members.remove(admin, viewer.userId, null, meta), 'NOT_FOUND');
    expect(await activeKeysOf(tenantId, viewer.userId)).toEqual([]);
  });

  it('of several owners any may be removed or leave, with the keys they hold revoked and both audited exactly; the last may not', async () => {
    const { tenantId, actors } = await tenantWith('owner', 'owner');
    const [first, second, third] = actors as [TenantActor, TenantActor, TenantActor];
    const secondKey = await keyOf(second);
    const removed = await members.remove(first, second.userId, null, { ...meta, requestId: 'req-7' });
    expect(removed).toMatchObject({ member: { userId: second.userId, role: 'owner' }, revokedKeyIds: [secondKey] });
    expect(await roleOf(tenantId, second.userId)).toBeNull();
    expect(await recorded(tenantId, 'api_key.revoke')).toEqual([
      {
        actor: { userId: first.userId },
        ...meta,
        target: { type: 'api_key', id: secondKey },
        details: { name: 'k', prefix: expect.any(String), reason: 'secret_holder_removed', request_id: 'req-7' },
      },
    ]);
    expect((await members.remove(third, third.userId, null, meta)).revokedKeyIds).toEqual([]);
    expect(await roleOf(tenantId, third.userId)).toBeNull();
    expect(await recorded(tenantId, 'member.remove')).toEqual([
      {
        actor: { userId: first.userId },
        ...meta,
        target: { type: 'user', id: second.userId },
        details: { role: 'owner', self: false, revoked_api_keys: 1 },
      },
      {
        actor: { userId: third.userId },
        ...meta,
        target: { type: 'user', id: third.userId },
        details: { role: 'owner', self: true, revoked_api_keys: 0 },
      },
    ]);
    await fails(members.remove(first, first.userId, null, meta), 'CONFLICT');
    expect(await roleOf(tenantId, first.userId)).toBe('owner');
  });

  it('the last owner of a tenant with several other members cannot leave, and keeps their keys', async () => {
    const { tenantId, actors } = await tenantWith('member', 'admin');
    const [owner] = actors as [TenantActor];
    const key = await keyOf(owner);
    await fails(members.remove(owner, owner.userId, null, meta), 'CONFLICT');
    expect(await activeKeysOf(tenantId, owner.userId)).toEqual([key]);
    expect(await roleOf(tenantId, owner.userId)).toBe('owner');
  });
});

describe('inviting', () => {
  it('trims and lower-cases the email, stamps the invitation with the injected clock, and audits it exactly; one answer with or without an account', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const admin = actors[1]!;
    const known = await newUser();
    clock = T0 + 5_000;
    const a = await members.invite(admin, { email: `  ${known.email.toUpperCase()}  `, role: 'member' }, null, meta);
    const b = await members.invite(admin, { email: ' Nobody@Example.TEST ', role: 'viewer' }, null, meta);
    const expiresAt = iso(T0 + 5_000 + TTL_SECONDS * 1000);
    const common = { tenantId, invitedBy: admin.userId, status: 'pending', createdAt: iso(T0 + 5_000), expiresAt, decidedAt: null };
    expect(a).toEqual({ id: expect.any(String), email: known.email, role: 'member', ...common });
    expect(b).toEqual({ id: expect.any(String), email: 'nobody@example.test', role: 'viewer', ...common });
    expect(await recorded(tenantId, 'member.invite')).toEqual([
      {
        actor: { userId: admin.userId },
        ...meta,
        target: { type: 'invitation', id: a.id },
        details: { email: known.email, role: 'member', expires_at: expiresAt },
      },
      {
        actor: { userId: admin.userId },
        ...meta,
        target: { type: 'invitation', id: b.id },
        details: { email: 'nobody@example.test', role: 'viewer', expires_at: expiresAt },
      },
    ]);
    expect((await members.pendingInvitations(known.id)).map((i) => i.id)).toEqual([a.id]);
  });

  it('both listings show a pending invitation until its expiry instant, the invitee’s with the tenant’s name', async () => {
    const { actors } = await tenantWith('admin');
    const [owner, admin] = actors as [TenantActor, TenantActor];
    const invitee = await newUser();
    const invitation = await members.invite(admin, { email: invitee.email, role: 'member' }, null, meta);
    clock = Date.parse(invitation.expiresAt) - 1;
    expect(await members.tenantInvitations(owner)).toEqual([invitation]);
    expect(await members.pendingInvitations(invitee.id)).toEqual([{ ...invitation, tenantName: 'Acme' }]);
    clock = Date.parse(invitation.expiresAt);
    expect(await members.tenantInvitations(owner)).toEqual([]);
    expect(await members.pendingInvitations(invitee.id)).toEqual([]);
  });

  it('an invitation made while its invitee was joining, then accepted: 409, and nothing changes', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const admin = actors[1]!;
    const invitee = await newUser();
    const first = await members.invite(admin, { email: invitee.email, role: 'viewer' }, null, meta);
    // The second invite checks membership (none yet); the invitee accepts the first before it is stored.
    after.membership = async () => void (await members.acceptInvitation(invitee.id, first.id, meta));
    const second = await members.invite(admin, { email: invitee.email, role: 'member' }, null, meta);
    expect(second.id).not.toBe(first.id);
    await fails(members.acceptInvitation(invitee.id, second.id, meta), 'CONFLICT');
    expect(await roleOf(tenantId, invitee.id)).toBe('viewer');
    expect(await ports.invitations.get(second.id)).toMatchObject({ status: 'pending' });
    expect((await recorded(tenantId, 'member.invite_accept')).map((e) => e.target)).toEqual([{ type: 'invitation', id: first.id }]);
  });
});

describe('the invitee’s side', () => {
  it('accepting until the expiry instant adds the member with its role, audited exactly; at the instant it is 409', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const admin = actors[1]!;
    const invitee = await newUser();
    const invitation = await members.invite(admin, { email: invitee.email, role: 'member' }, null, meta);
    clock = Date.parse(invitation.expiresAt);
    await fails(members.acceptInvitation(invitee.id, invitation.id, meta), 'CONFLICT');
    expect(await roleOf(tenantId, invitee.id)).toBeNull();
    clock -= 1;
    expect(await members.acceptInvitation(invitee.id, invitation.id, meta)).toEqual({ tenantId, role: 'member' });
    expect(await roleOf(tenantId, invitee.id)).toBe('member');
    expect(await recorded(tenantId, 'member.invite_accept')).toEqual([
      {
        actor: { userId: invitee.id },
        ...meta,
        target: { type: 'invitation', id: invitation.id },
        details: { role: 'member', invited_by: admin.userId },
      },
    ]);
  });

  it('an invitation whose inviter was demoted is void: 409, no member, and its cancellation audited exactly with the invitee as actor', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const [owner, admin] = actors as [TenantActor, TenantActor];
    const invitee = await newUser();
    const invitation = await members.invite(admin, { email: invitee.email, role: 'admin' }, null, meta);
    await members.changeRole(owner, admin.userId, 'member', null, meta);
    await fails(members.acceptInvitation(invitee.id, invitation.id, meta), 'CONFLICT');
    expect(await roleOf(tenantId, invitee.id)).toBeNull();
    expect(await recorded(tenantId, 'member.invite_cancel')).toEqual([
      {
        actor: { userId: invitee.id },
        ...meta,
        target: { type: 'invitation', id: invitation.id },
        details: { email: invitee.email, role: 'admin', reason: 'inviter_lost_authority', invited_by: admin.userId },
      },
    ]);
  });

  it('declining is audited exactly; declining again is 409, and another account’s attempt 404', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const admin = actors[1]!;
    const invitee = await newUser();
    const invitation = await members.invite(admin, { email: invitee.email, role: 'viewer' }, null, meta);
    clock += 1_000;
    expect(await members.declineInvitation(invitee.id, invitation.id, meta)).toMatchObject({ status: 'declined', decidedAt: iso(clock) });
    await fails(members.declineInvitation(invitee.id, invitation.id, meta), 'CONFLICT');
    await fails(members.declineInvitation((await newUser()).id, invitation.id, meta), 'NOT_FOUND');
    expect(await recorded(tenantId, 'member.invite_decline')).toEqual([
      { actor: { userId: invitee.id }, ...meta, target: { type: 'invitation', id: invitation.id }, details: { role: 'viewer' } },
    ]);
  });

  it('an account deleted since (a half-provisioned sign-up is undone this way): no invitations listed, accept and decline 404', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const invitee = await newUser();
    const invitation = await members.invite(actors[1]!, { email: invitee.email, role: 'member' }, null, meta);
    await ports.users.delete(invitee.id);
    expect(await members.pendingInvitations(invitee.id)).toEqual([]);
    await fails(members.acceptInvitation(invitee.id, invitation.id, meta), 'NOT_FOUND');
    await fails(members.declineInvitation(invitee.id, invitation.id, meta), 'NOT_FOUND');
    expect(await ports.invitations.get(invitation.id)).toMatchObject({ status: 'pending' });
    expect(await roleOf(tenantId, invitee.id)).toBeNull();
  });
});

describe('cancelling', () => {
  it('is audited exactly', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const admin = actors[1]!;
    const invitation = await members.invite(admin, { email: 'x@example.test', role: 'member' }, null, meta);
    clock += 1_000;
    expect(await members.cancelInvitation(admin, invitation.id, meta)).toMatchObject({ status: 'cancelled', decidedAt: iso(clock) });
    expect(await recorded(tenantId, 'member.invite_cancel')).toEqual([
      {
        actor: { userId: admin.userId },
        ...meta,
        target: { type: 'invitation', id: invitation.id },
        details: { email: 'x@example.test', role: 'member', reason: 'cancelled' },
      },
    ]);
  });

  it('another tenant’s invitation is 404 whatever its state or role', async () => {
    const theirs = await tenantWith();
    const { actors } = await tenantWith('admin');
    const admin = actors[1]!;
    const owner = theirs.actors[0]!;
    const invitee = await newUser();
    const declined = await members.invite(owner, { email: invitee.email, role: 'member' }, null, meta);
    await members.declineInvitation(invitee.id, declined.id, meta);
    const ownerInvitation = await members.invite(owner, { email: 'o@example.test', role: 'owner' }, null, meta);
    await fails(members.cancelInvitation(admin, declined.id, meta), 'NOT_FOUND');
    await fails(members.cancelInvitation(admin, ownerInvitation.id, meta), 'NOT_FOUND');
    expect(await ports.invitations.get(ownerInvitation.id)).toMatchObject({ status: 'pending' });
  });

  it('an invitation no longer pending is 409 before the role rule: an admin cancelling a declined owner invitation', async () => {
    const { actors } = await tenantWith('admin');
    const [owner, admin] = actors as [TenantActor, TenantActor];
    const invitee = await newUser();
    const invitation = await members.invite(owner, { email: invitee.email, role: 'owner' }, null, meta);
    await members.declineInvitation(invitee.id, invitation.id, meta);
    await fails(members.cancelInvitation(admin, invitation.id, meta), 'CONFLICT');
  });

  it('declined between the read and the write: 409, the invitation stays declined, and no cancellation is recorded', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const admin = actors[1]!;
    const invitee = await newUser();
    const invitation = await members.invite(admin, { email: invitee.email, role: 'member' }, null, meta);
    after.getInvitation = async () => void (await members.declineInvitation(invitee.id, invitation.id, meta));
    await fails(members.cancelInvitation(admin, invitation.id, meta), 'CONFLICT');
    expect(await ports.invitations.get(invitation.id)).toMatchObject({ status: 'declined' });
    expect(await recorded(tenantId, 'member.invite_cancel')).toEqual([]);
  });

  it('refreshed to another role between the read and the write: 409, the new invitation stands, and no cancellation is recorded', async () => {
    const { tenantId, actors } = await tenantWith('admin');
    const [owner, admin] = actors as [TenantActor, TenantActor];
    const invitation = await members.invite(admin, { email: 'r@example.test', role: 'member' }, null, meta);
    after.getInvitation = async () => void (await members.invite(owner, { email: 'r@example.test', role: 'owner' }, null, meta));
    await fails(members.cancelInvitation(admin, invitation.id, meta), 'CONFLICT');
    expect(await ports.invitations.get(invitation.id)).toMatchObject({ status: 'pending', role: 'owner', invitedBy: owner.userId });
    expect(await recorded(tenantId, 'member.invite_cancel')).toEqual([]);
  });
});
