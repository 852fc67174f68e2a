import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { createEmbeddedBreakGlassStore } from '../../adapters/embedded/break-glass.js';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';
import { createEmbeddedUserStore } from '../../adapters/embedded/users.js';
import { createEmbeddedInvitationStore } from '../../adapters/embedded/invitations.js';
import { createInProcessAttemptCounters } from '../support/in-process-attempt-counters.js';
import { createLogger } from '../../server/logger.js';
import type { AuditEventRecord } from '../../server/ports/audit.js';
import { createAuditService, type AuditService } from '../../server/services/audit.js';
import { createBreakGlassService, type BreakGlassService } from '../../server/services/break-glass.js';
import type { RoleName } from '../../server/services/roles.js';
import { createTenantsService, type TenantActor, type TenantsService } from '../../server/services/tenants.js';
import { createMembersService, type MembersService } from '../../server/services/members.js';
import { tenancyFixtures } from '../support/identity-stores.js';
import { createKeyedBudget } from '../../server/services/address-budget.js';
import { appError } from '../support/app-error.js';

// The tenancy services over the real embedded ports, with a clock the tests move. Written to kill the
// mutants the HTTP suites let live (see docs/mutation-testing.md): exact audit records, validation
// boundaries and the expiry instant of a break-glass grant.

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const MAX_MINUTES = 60;
const meta = { ip: '203.0.113.9', userAgent: 'mutants/1' };

let clock: number;
/** When set, every read of the clock moves it 1 ms on, as a real clock does between two reads. */
let ticking: boolean;
let audit: AuditService;
let tenants: TenantsService;
let members: MembersService;
let breakGlass: BreakGlassService;
let ports: { users: ReturnType<typeof createEmbeddedUserStore>; tenants: ReturnType<typeof createEmbeddedTenantStore> };

beforeEach(() => {
  clock = T0;
  ticking = false;
  const db = openInMemoryDatabase();
  const now = () => (ticking ? clock++ : clock);
  ports = { users: createEmbeddedUserStore(db), tenants: createEmbeddedTenantStore(db) };
  audit = createAuditService({ audit: createEmbeddedAuditStore(db), logger: createLogger('silent'), clock: now });
  tenants = createTenantsService({ tenants: ports.tenants, audit, clock: now });
  const counters = createInProcessAttemptCounters();
  const budget = (keyPrefix: string) =>
    createKeyedBudget({ keyPrefix, perWindow: 100, windowSeconds: 3600, what: 'invitations' }, counters);
  breakGlass = createBreakGlassService({ breakGlass: createEmbeddedBreakGlassStore(db), audit, maxMinutes: MAX_MINUTES, clock: now });
  members = createMembersService({
    tenants: ports.tenants,
    users: ports.users,
    invitations: createEmbeddedInvitationStore(db),
    audit,
    // Step-up itself is tested against the real service in test/e2e/members.test.ts; here it is granted.
    stepUp: { verifyStepUp: async () => {} },
    apiKeys: { revokeHeldBy: async () => [] },
    breakGlass,
    invitationBudgets: { perUser: budget('u'), perTenant: budget('t') },
    invitationTtlSeconds: 3600,
    clock: now,
  });
});

const { newUser, tenantWith } = tenancyFixtures(() => ({
  users: ports.users,
  tenants: ports.tenants,
  tenantsService: tenants,
  usersCreatedAt: new Date(T0).toISOString(),
  membersJoinedAt: T0,
  meta,
}));

async function events(tenantId: string): Promise<AuditEventRecord[]> {
  return (await audit.list(tenantId, { limit: 100, offset: 0 })).events;
}

describe('tenants service', () => {
  it('creates an active free tenant with the trimmed name, owned by its creator, and audits tenant.create', async () => {
    const u = await newUser();
    const { tenant, membership } = await tenants.create(u.id, { name: '  Acme Ltd  ' }, meta);
    expect(tenant).toMatchObject({ name: 'Acme Ltd', plan: 'free', status: 'active', createdAt: new Date(T0).toISOString() });
    expect(membership).toEqual({
      tenantId: tenant.id,
      userId: u.id,
      role: 'owner',
      isDefault: false,
      createdAt: new Date(T0).toISOString(),
      roleSince: new Date(T0).toISOString(),
    });
    expect(await ports.tenants.membership(tenant.id, u.id)).toMatchObject({ role: 'owner', isDefault: false });
    const [created] = await events(tenant.id);
    expect(created).toMatchObject({
      type: 'tenant.create',
      actor: { userId: u.id },
      ip: meta.ip,
      userAgent: meta.userAgent,
      target: { type: 'tenant', id: tenant.id },
      details: { name: 'Acme Ltd', plan: 'free' },
    });
  });

  it('marks a default tenant as such', async () => {
    const u = await newUser();
    const { tenant, membership } = await tenants.create(u.id, { name: 'Home', isDefault: true }, meta);
    expect(membership.isDefault).toBe(true);
    expect(await ports.tenants.membership(tenant.id, u.id)).toMatchObject({ isDefault: true });
  });

  it.each(['', '   '])('refuses the blank name %j with a validation error naming the field', async (name) => {
    const err = await appError(tenants.create((await newUser()).id, { name }, meta));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details?.fields).toEqual([{ field: 'name', message: 'must not be empty' }]);
  });

  it('primary is the oldest membership, and null for a user with none', async () => {
    const u = await newUser();
    expect(await tenants.primary(u.id)).toBeNull();
    const { tenant: first } = await tenants.create(u.id, { name: 'First' }, meta);
    clock += 1_000;
    await tenants.create(u.id, { name: 'Second' }, meta);
    expect((await tenants.primary(u.id))?.tenant.id).toBe(first.id);
    expect((await tenants.listForUser(u.id)).map((t) => t.tenant.name)).toEqual(['First', 'Second']);
  });

  it('a role change is audited with from and to; asking for the role already held changes and audits nothing', async () => {
    const { tenantId, actors } = await tenantWith('member');
    const [owner, member] = actors as [TenantActor, TenantActor];
    const before = (await events(tenantId)).length;
    expect(await members.changeRole(owner, member.userId, 'member', null, meta)).toMatchObject({ userId: member.userId, role: 'member' });
    expect(await events(tenantId)).toHaveLength(before);
    expect(await members.changeRole(owner, member.userId, 'viewer', null, meta)).toMatchObject({ userId: member.userId, role: 'viewer' });
    const last = (await events(tenantId)).find((e) => e.type === 'member.role_change');
    expect(last).toMatchObject({
      actor: { userId: owner.userId },
      ip: meta.ip,
      target: { type: 'user', id: member.userId },
      details: { from: 'member', to: 'viewer' },
    });
  });

  it.each<[RoleName, RoleName, RoleName, boolean]>([
    // actor, target's role, new role, allowed
    ['admin', 'member', 'admin', true],
    ['admin', 'member', 'owner', false],
    ['admin', 'owner', 'member', false],
    ['owner', 'member', 'owner', true],
    ['owner', 'owner', 'admin', true],
  ])('%s changing a %s to %s: allowed %s', async (actorRole, targetRole, role, allowed) => {
    const { actors } = await tenantWith('owner', actorRole, targetRole);
    const actor = actors[2]!;
    const target = actors[3]!;
    const outcome = members.changeRole(actor, target.userId, role, null, meta);
    if (allowed) expect(await outcome).toMatchObject({ role });
    else expect((await appError(outcome)).code).toBe('FORBIDDEN');
  });

  it('lists the members of the tenant asked for, with their roles', async () => {
    const { tenantId, actors } = await tenantWith('viewer');
    await tenantWith('member');
    const listed = await tenants.listMembers(tenantId);
    expect(listed.map((m) => [m.userId, m.role]).sort()).toEqual(actors.map((a) => [a.userId, a.role]).sort());
  });

  it('answers 404 for a user who is not a member and 409 for demoting the last owner', async () => {
    const { actors } = await tenantWith();
    const owner = actors[0]!;
    expect((await appError(members.changeRole(owner, randomUUID(), 'member', null, meta))).code).toBe('NOT_FOUND');
    expect((await appError(members.changeRole(owner, owner.userId, 'admin', null, meta))).code).toBe('CONFLICT');
  });
});

describe('break-glass service', () => {
  it('records a pending request with the trimmed reason and audits it', async () => {
    const { tenantId, actors } = await tenantWith('member');
    const member = actors[1]!;
    const r = await breakGlass.request(member, { reason: '  incident 42  ', durationMinutes: 5 }, meta);
    expect(r).toMatchObject({
      tenantId,
      requesterId: member.userId,
      reason: 'incident 42',
      durationMinutes: 5,
      status: 'pending',
      createdAt: new Date(T0).toISOString(),
      decidedAt: null,
      decidedBy: null,
      expiresAt: null,
    });
    const e = (await events(tenantId)).find((x) => x.type === 'break_glass.request');
    expect(e).toMatchObject({
      actor: { userId: member.userId },
      ip: meta.ip,
      target: { type: 'break_glass', id: r.id },
      details: { reason: 'incident 42', duration_minutes: 5 },
    });
  });

  it.each([
    ['  ', 5, 'reason'],
    ['ok', 0, 'duration_minutes'],
    ['ok', MAX_MINUTES + 1, 'duration_minutes'],
    ['ok', 1.5, 'duration_minutes'],
  ])('refuses reason %j with %s minutes, naming %s', async (reason, durationMinutes, field) => {
    const { actors } = await tenantWith('member');
    const err = await appError(breakGlass.request(actors[1]!, { reason, durationMinutes }, meta));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details?.fields?.map((f) => f.field)).toEqual([field]);
  });

  it.each([1, MAX_MINUTES])('accepts %s minutes, the bounds', async (durationMinutes) => {
    const { actors } = await tenantWith('member');
    expect((await breakGlass.request(actors[1]!, { reason: 'r', durationMinutes }, meta)).durationMinutes).toBe(durationMinutes);
  });

  it('an approval lasts exactly its duration from the decision, is audited, and then expires (audited once)', async () => {
    const { tenantId, actors } = await tenantWith('admin', 'member');
    const [, admin, member] = actors as [TenantActor, TenantActor, TenantActor];
    const r = await breakGlass.request(member, { reason: 'r', durationMinutes: 5 }, meta);
    clock += 60_000;
    const approved = await breakGlass.approve(admin, r.id, meta);
    const expiresAt = new Date(T0 + 6 * 60_000).toISOString();
    expect(approved).toMatchObject({
      status: 'approved',
      decidedBy: admin.userId,
      decidedAt: new Date(T0 + 60_000).toISOString(),
      expiresAt,
    });
    expect((await events(tenantId)).find((e) => e.type === 'break_glass.approve')).toMatchObject({
      actor: { userId: admin.userId },
      ip: meta.ip,
      target: { type: 'break_glass', id: r.id },
      details: { requester_id: member.userId, duration_minutes: 5, expires_at: expiresAt },
    });

    clock = Date.parse(expiresAt) - 1;
    expect((await breakGlass.activeGrant((await ports.tenants.membership(tenantId, member.userId))!))?.id).toBe(r.id);
    expect((await breakGlass.list(member)).map((x) => x.status)).toEqual(['approved']);

    clock = Date.parse(expiresAt);
    expect(await breakGlass.activeGrant((await ports.tenants.membership(tenantId, member.userId))!)).toBeNull();
    expect((await breakGlass.list(member)).map((x) => x.status)).toEqual(['expired']);
    await breakGlass.list(admin);
    const expiries = (await events(tenantId)).filter((e) => e.type === 'break_glass.expire');
    expect(expiries).toHaveLength(1);
    expect(expiries[0]).toMatchObject({
      actor: {},
      target: { type: 'break_glass', id: r.id },
      details: { requester_id: member.userId, expired_at: expiresAt },
    });
  });

  it('lists a grant as expired from its expiry instant even before the lazy write has marked it', async () => {
    const { tenantId, actors } = await tenantWith('member', 'member');
    const [owner, member, other] = actors as [TenantActor, TenantActor, TenantActor];
    const grant = await breakGlass.request(member, { reason: 'r', durationMinutes: 5 }, meta);
    const pending = await breakGlass.request(other, { reason: 'p', durationMinutes: 5 }, meta);
    const { expiresAt } = await breakGlass.approve(owner, grant.id, meta);
    // The lazy write reads the clock 1 ms before expiry; the listing reads it at the expiry instant.
    clock = Date.parse(expiresAt!) - 1;
    ticking = true;
    const listed = await breakGlass.list(owner);
    ticking = false;
    expect(Object.fromEntries(listed.map((r) => [r.id, r.status]))).toEqual({ [grant.id]: 'expired', [pending.id]: 'pending' });
    expect((await events(tenantId)).map((e) => e.type)).not.toContain('break_glass.expire');
  });

  it('a denial grants nothing, has no expiry and is audited as a denial', async () => {
    const { tenantId, actors } = await tenantWith('member');
    const [owner, member] = actors as [TenantActor, TenantActor];
    const r = await breakGlass.request(member, { reason: 'r', durationMinutes: 5 }, meta);
    expect(await breakGlass.deny(owner, r.id, meta)).toMatchObject({ status: 'denied', decidedBy: owner.userId, expiresAt: null });
    expect(await breakGlass.activeGrant((await ports.tenants.membership(tenantId, member.userId))!)).toBeNull();
    expect((await events(tenantId)).map((e) => e.type)).toContain('break_glass.deny');
    expect((await events(tenantId)).map((e) => e.type)).not.toContain('break_glass.approve');
    expect((await appError(breakGlass.approve(owner, r.id, meta))).code).toBe('CONFLICT');
  });

  it('only approvers other than the requester decide; unknown ids are 404 before anything else', async () => {
    const { actors } = await tenantWith('admin', 'member', 'viewer');
    const [owner, admin, member, viewer] = actors as [TenantActor, TenantActor, TenantActor, TenantActor];
    const mine = await breakGlass.request(admin, { reason: 'r', durationMinutes: 5 }, meta);
    expect((await appError(breakGlass.approve(admin, mine.id, meta))).code).toBe('FORBIDDEN');
    expect((await appError(breakGlass.approve(member, mine.id, meta))).code).toBe('FORBIDDEN');
    expect((await appError(breakGlass.deny(viewer, mine.id, meta))).code).toBe('FORBIDDEN');
    expect((await appError(breakGlass.approve(member, randomUUID(), meta))).code).toBe('NOT_FOUND');
    expect((await breakGlass.approve(owner, mine.id, meta)).status).toBe('approved');
  });

  it('approvers list every request of the tenant, others only their own', async () => {
    const { actors } = await tenantWith('member', 'member');
    const [owner, a, b] = actors as [TenantActor, TenantActor, TenantActor];
    const ra = await breakGlass.request(a, { reason: 'a', durationMinutes: 5 }, meta);
    clock += 1;
    const rb = await breakGlass.request(b, { reason: 'b', durationMinutes: 5 }, meta);
    expect((await breakGlass.list(owner)).map((r) => r.id).sort()).toEqual([ra.id, rb.id].sort());
    expect((await breakGlass.list(a)).map((r) => r.id)).toEqual([ra.id]);
  });
});
