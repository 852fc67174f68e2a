import { beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedApiKeyStore } from '../../adapters/embedded/api-key-store.js';
import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { createEmbeddedBreakGlassStore } from '../../adapters/embedded/break-glass.js';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedInvitationStore } from '../../adapters/embedded/invitations.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';
import { createEmbeddedUserStore } from '../../adapters/embedded/users.js';
import { createInProcessAttemptCounters } from '../support/in-process-attempt-counters.js';
import { createLogger } from '../../server/logger.js';
import type { TenantStore } from '../../server/ports/tenants.js';
import { createKeyedBudget } from '../../server/services/address-budget.js';
import { apiKeyAuditSink, createApiKeyService, type ApiKeyService } from '../../server/services/api-keys.js';
import { createAuditService, type AuditService } from '../../server/services/audit.js';
import { createBreakGlassService, type BreakGlassService } from '../../server/services/break-glass.js';
import { createMembersService, type MembersService } from '../../server/services/members.js';
import { createTenantsService, type TenantActor } from '../../server/services/tenants.js';
import { tenancyFixtures } from '../support/identity-stores.js';
import { appError } from '../support/app-error.js';

// Membership changes over the real embedded ports and the real API-key and break-glass services, with
// hooks that let a test act between the service's steps: what a concurrent request, or a failure
// part-way, would do. (The HTTP behaviour is in test/e2e/members.test.ts.)

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const meta = { ip: '203.0.113.9', userAgent: 'member-changes/1' };

let clock: number;
let db: ReturnType<typeof openInMemoryDatabase>;
let ports: { users: ReturnType<typeof createEmbeddedUserStore>; tenants: TenantStore };
let audit: AuditService;
let apiKeys: ApiKeyService;
let breakGlass: BreakGlassService;
let members: MembersService;
/** Run once, right after the service has read the target's membership (a concurrent request's moment). */
let afterMemberRead: (() => Promise<void>) | null;
/** Stands around each call the members service makes to revoke a user's keys (`n` counts from 1). */
let aroundRevoke: ((n: number, revoke: () => Promise<string[]>) => Promise<string[]>) | null;
let revokeCalls: number;

beforeEach(() => {
  clock = T0;
  afterMemberRead = null;
  aroundRevoke = null;
  revokeCalls = 0;
  db = openInMemoryDatabase();
  const now = () => clock;
  const tenantsPort = createEmbeddedTenantStore(db);
  const probedTenants: TenantStore = {
    ...tenantsPort,
    async getMember(tenantId, userId) {
      const found = await tenantsPort.getMember(tenantId, userId);
      const hook = afterMemberRead;
      afterMemberRead = null;
      await hook?.();
      return found;
    },
  };
  ports = { users: createEmbeddedUserStore(db), tenants: tenantsPort };
  const logger = createLogger('silent');
  audit = createAuditService({ audit: createEmbeddedAuditStore(db), logger, clock: now });
  apiKeys = createApiKeyService({
    store: createEmbeddedApiKeyStore(db),
    tenants: tenantsPort,
    logger,
    audit: apiKeyAuditSink(audit, logger),
    clock: now,
  });
  breakGlass = createBreakGlassService({ breakGlass: createEmbeddedBreakGlassStore(db), audit, maxMinutes: 60, clock: now });
  const counters = createInProcessAttemptCounters();
  const budget = (keyPrefix: string) =>
    createKeyedBudget({ keyPrefix, perWindow: 100, windowSeconds: 3600, what: 'invitations' }, counters);
  members = createMembersService({
    tenants: probedTenants,
    users: ports.users,
    invitations: createEmbeddedInvitationStore(db),
    audit,
    // Step-up itself is tested against the real service in test/e2e/members.test.ts; here it is granted.
    stepUp: { verifyStepUp: async () => {} },
    apiKeys: {
      revokeHeldBy(actor, creatorId) {
        const revoke = () => apiKeys.revokeHeldBy(actor, creatorId);
        revokeCalls += 1;
        return aroundRevoke ? aroundRevoke(revokeCalls, revoke) : revoke();
      },
    },
    breakGlass,
    invitationBudgets: { perUser: budget('u'), perTenant: budget('t') },
    invitationTtlSeconds: 3600,
    clock: now,
  });
});

const { tenantWith } = tenancyFixtures(() => ({
  users: ports.users,
  tenants: ports.tenants,
  tenantsService: createTenantsService({ tenants: ports.tenants, audit, clock: () => clock }),
  usersCreatedAt: new Date(T0).toISOString(),
  membersJoinedAt: clock,
  meta,
}));

const roleOf = async (tenantId: string, userId: string) => (await ports.tenants.membership(tenantId, userId))?.role ?? null;

describe('role changes and removal compare and set the role they checked', () => {
  it('an admin’s demotion of a member made owner meanwhile is refused with 409, and the owner stays owner', async () => {
    const { tenantId, actors } = await tenantWith('admin', 'member');
    const [owner, admin, target] = actors as [TenantActor, TenantActor, TenantActor];
    // Between the admin's read (a member: allowed) and the write, the owner makes the target owner.
    afterMemberRead = async () => {
      await members.changeRole(owner, target.userId, 'owner', null, meta);
    };
    const err = await appError(members.changeRole(admin, target.userId, 'viewer', null, meta));
    expect(err.code).toBe('CONFLICT');
    expect(await roleOf(tenantId, target.userId)).toBe('owner');
  });

  it('an admin’s removal of a member made owner meanwhile is refused with 409, and the owner stays', async () => {
    const { tenantId, actors } = await tenantWith('admin', 'member');
    const [owner, admin, target] = actors as [TenantActor, TenantActor, TenantActor];
    afterMemberRead = async () => {
      await members.changeRole(owner, target.userId, 'owner', null, meta);
    };
    const err = await appError(members.remove(admin, target.userId, null, meta));
    expect(err.code).toBe('CONFLICT');
    expect(await roleOf(tenantId, target.userId)).toBe('owner');
  });

  it('a demotion that would land as a promotion (the step-up decision used a stale role) is refused with 409', async () => {
    const { tenantId, actors } = await tenantWith('owner');
    const [owner, target] = actors as [TenantActor, TenantActor];
    // Read as owner → admin (a demotion: no step-up asked); meanwhile made viewer, so the write would promote.
    afterMemberRead = async () => {
      await members.changeRole(owner, target.userId, 'viewer', null, meta);
    };
    expect((await appError(members.changeRole(owner, target.userId, 'admin', null, meta))).code).toBe('CONFLICT');
    expect(await roleOf(tenantId, target.userId)).toBe('viewer');
  });
});

describe('removing a member revokes their keys first, then ends the membership, then sweeps again', () => {
  const keyOf = async (actor: TenantActor, name = 'k') =>
    (await apiKeys.create({ tenantId: actor.tenantId, userId: actor.userId, role: actor.role }, { name, scopes: ['memories:write'] })).key
      .keyId;
  const activeKeysOf = async (tenantId: string, userId: string) =>
    (await apiKeys.list(tenantId)).filter((k) => k.createdBy === userId && k.status === 'active').map((k) => k.keyId);

  it('a failure part-way through revoking leaves the member in place, and a retry completes the removal', async () => {
    const { tenantId, actors } = await tenantWith('admin', 'member');
    const [owner, admin, member] = actors as [TenantActor, TenantActor, TenantActor];
    const keys = [await keyOf(member, 'a'), await keyOf(member, 'b')];
    aroundRevoke = async (n) => {
      if (n !== 1) throw new Error('unexpected');
      await apiKeys.revoke({ tenantId, userId: owner.userId, manageAll: true }, keys[0]!); // one revoked, then the store fails
      throw new Error('storage went away');
    };
    await expect(members.remove(admin, member.userId, null, meta)).rejects.toThrow('storage went away');
    aroundRevoke = null;
    // Nothing is half-done in a way a retry cannot finish.
    expect(await roleOf(tenantId, member.userId)).toBe('member');
    const done = await members.remove(admin, member.userId, null, meta);
    expect(done.revokedKeyIds).toEqual([keys[1]]);
    expect(await roleOf(tenantId, member.userId)).toBeNull();
    expect(await activeKeysOf(tenantId, member.userId)).toEqual([]);
  });

  it('a key the member creates while being removed (an in-flight POST /api-keys) is revoked by the sweep after the removal', async () => {
    const { tenantId, actors } = await tenantWith('admin', 'member');
    const [, admin, member] = actors as [TenantActor, TenantActor, TenantActor];
    const before = await keyOf(member, 'before');
    let inFlight = '';
    aroundRevoke = async (n, revoke) => {
      const revoked = await revoke();
      if (n === 1) inFlight = await keyOf(member, 'in flight'); // lands after the first pass
      return revoked;
    };
    const { revokedKeyIds } = await members.remove(admin, member.userId, null, meta);
    expect(revokedKeyIds.sort()).toEqual([before, inFlight].sort());
    expect(await activeKeysOf(tenantId, member.userId)).toEqual([]);
    const removal = (await audit.list(tenantId, { limit: 100, offset: 0 })).events.find((e) => e.type === 'member.remove');
    expect(removal?.details).toMatchObject({ revoked_api_keys: 2 });
  });

  it('when the sweep after the removal fails, asking again (404: no longer a member) still revokes what it missed', async () => {
    const { tenantId, actors } = await tenantWith('admin', 'member');
    const [, admin, member] = actors as [TenantActor, TenantActor, TenantActor];
    await keyOf(member, 'before');
    aroundRevoke = async (n, revoke) => {
      if (n === 1) {
        const revoked = await revoke();
        await keyOf(member, 'in flight');
        return revoked;
      }
      throw new Error('storage went away');
    };
    await expect(members.remove(admin, member.userId, null, meta)).rejects.toThrow('storage went away');
    aroundRevoke = null;
    expect(await roleOf(tenantId, member.userId)).toBeNull();
    expect(await activeKeysOf(tenantId, member.userId)).toHaveLength(1);
    expect((await appError(members.remove(admin, member.userId, null, meta))).code).toBe('NOT_FOUND');
    expect(await activeKeysOf(tenantId, member.userId)).toEqual([]);
  });

  it('the last owner trying to leave is refused before any key is revoked', async () => {
    const { tenantId, actors } = await tenantWith('member');
    const [owner] = actors as [TenantActor];
    const key = await keyOf(owner);
    expect((await appError(members.remove(owner, owner.userId, null, meta))).code).toBe('CONFLICT');
    expect(await activeKeysOf(tenantId, owner.userId)).toEqual([key]);
  });
});
