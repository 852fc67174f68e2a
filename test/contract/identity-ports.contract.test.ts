import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { createEmbeddedBreakGlassStore } from '../../adapters/embedded/break-glass.js';
import { createEmbeddedSessionStore } from '../../adapters/embedded/sessions.js';
import { createEmbeddedStepUpTokenStore } from '../../adapters/embedded/step-up.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';
import { createEmbeddedUserStore } from '../../adapters/embedded/users.js';
import { createMongoAuditStore } from '../../adapters/mongo/audit.js';
import { createMongoBreakGlassStore } from '../../adapters/mongo/break-glass.js';
import {
  createMongoSessionStore,
  createMongoStepUpTokenStore,
  createMongoTenantStore,
  createMongoUserStore,
} from '../../adapters/mongo/identity.js';
import type { AuditEventRecord, AuditStore } from '../../server/ports/audit.js';
import type { BreakGlassStore, BreakGlassRecord } from '../../server/ports/break-glass.js';
import type { SessionRecord, SessionStore } from '../../server/ports/sessions.js';
import type { StepUpTokenStore } from '../../server/ports/step-up.js';
import type { TenantStore } from '../../server/ports/tenants.js';
import type { UserStore } from '../../server/ports/users.js';
import { newTenant as createTenant, newUser as createUser, onEmbeddedAndMongo } from '../support/identity-stores.js';

interface Ports {
  users: UserStore;
  tenants: TenantStore;
  sessions: SessionStore;
  stepUp: StepUpTokenStore;
  breakGlass: BreakGlassStore;
  audit: AuditStore;
}

const T0 = '2030-01-01T00:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const hash = () => new Uint8Array(randomBytes(32));

/** One behavioural suite for every adapter of the identity ports. */
function contract(name: string, open: () => Promise<{ ports: Ports; close(): Promise<void> }>) {
  describe(`identity ports contract: ${name}`, () => {
    let p: Ports;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ ports: p, close } = await open());
    });
    afterAll(async () => {
      await close?.();
    });

    const newUser = (email = `u-${randomUUID()}@Example.com`, passwordHash: string | null = '$argon2id$x') =>
      createUser(p.users, { email, name: 'N', passwordHash, createdAt: T0 });
    const newTenant = (ownerId: string, createdAt = T0, isDefault = true) => createTenant(p.tenants, ownerId, createdAt, isDefault);

    describe('users', () => {
      it('stores emails lower-cased, finds them case-insensitively and refuses duplicates', async () => {
        const u = await newUser('Mixed.Case@Example.COM');
        expect(u.email).toBe('mixed.case@example.com');
        expect(await p.users.findByEmail('MIXED.case@example.com')).toEqual(u);
        expect(await p.users.findById(u.id)).toEqual(u);
        expect(
          await p.users.create({ id: randomUUID(), email: 'mixed.CASE@example.com', name: null, passwordHash: null, createdAt: T0 }),
        ).toBeNull();
        expect(await p.users.findById(randomUUID())).toBeNull();
      });

      it('updates the password hash and deletes users', async () => {
        const u = await newUser();
        await p.users.setPasswordHash(u.id, '$argon2id$new');
        expect((await p.users.findById(u.id))?.passwordHash).toBe('$argon2id$new');
        await p.users.delete(u.id);
        expect(await p.users.findById(u.id)).toBeNull();
      });

      it('links an external identity once and finds the user by it', async () => {
        const u = await newUser(undefined, null);
        const link = { provider: 'acme', subject: randomUUID(), userId: u.id, email: u.email, createdAt: T0 };
        expect(await p.users.linkIdentity(link)).toBe(true);
        expect(await p.users.linkIdentity({ ...link, userId: (await newUser()).id })).toBe(false);
        expect(await p.users.findByIdentity('acme', link.subject)).toEqual(u);
        expect(await p.users.findByIdentity('other', link.subject)).toBeNull();
        expect(await p.users.listIdentities(u.id)).toEqual([link]);
      });
    });

    describe('tenants and memberships', () => {
      it('creates a tenant with its owner and lists a user’s tenants in membership order', async () => {
        const u = await newUser();
        const first = await newTenant(u.id, at(0), true);
        const second = await newTenant(u.id, at(1), false);
        expect(await p.tenants.get(first.id)).toEqual(first);
        const mine = await p.tenants.listForUser(u.id);
        expect(mine.map((t) => [t.tenant.id, t.membership.role, t.membership.isDefault])).toEqual([
          [first.id, 'owner', true],
          [second.id, 'owner', false],
        ]);
        expect(await p.tenants.membership(first.id, u.id)).toMatchObject({ role: 'owner', isDefault: true });
        expect(await p.tenants.membership(first.id, randomUUID())).toBeNull();
      });

      it('adds members once, lists them with their email, and changes roles', async () => {
        const owner = await newUser();
        const other = await newUser();
        const t = await newTenant(owner.id);
        expect(await p.tenants.addMember(t.id, { userId: other.id, role: 'viewer', isDefault: false, createdAt: at(5) })).toBe(true);
        expect(await p.tenants.addMember(t.id, { userId: other.id, role: 'admin', isDefault: false, createdAt: at(6) })).toBe(false);
        const members = await p.tenants.listMembers(t.id);
        expect(members.map((m) => [m.userId, m.email, m.role])).toEqual([
          [owner.id, owner.email, 'owner'],
          [other.id, other.email, 'viewer'],
        ]);
        // The role is set at joining, and again by each change (a break-glass grant requested before it never counts).
        expect(await p.tenants.membership(t.id, other.id)).toMatchObject({ createdAt: at(5), roleSince: at(5) });
        const changed = await p.tenants.changeRole(t.id, other.id, { from: 'viewer', to: 'admin', at: at(10) });
        expect(changed).toMatchObject({
          ok: true,
          previous: 'viewer',
          member: { userId: other.id, role: 'admin', createdAt: at(5), roleSince: at(10) },
        });
        expect(await p.tenants.getMember(t.id, other.id)).toMatchObject({ role: 'admin', email: other.email, roleSince: at(10) });
        expect(await p.tenants.membership(t.id, other.id)).toMatchObject({ createdAt: at(5), roleSince: at(10) });
        expect((await p.tenants.listForUser(other.id))[0]?.membership).toMatchObject({ roleSince: at(10) });
        // A refused change (role_changed, last_owner) leaves it alone.
        expect(await p.tenants.changeRole(t.id, other.id, { from: 'viewer', to: 'member', at: at(20) })).toEqual({
          ok: false,
          reason: 'role_changed',
        });
        expect((await p.tenants.membership(t.id, other.id))?.roleSince).toBe(at(10));
        expect(await p.tenants.changeRole(t.id, owner.id, { from: 'owner', to: 'member', at: at(20) })).toEqual({
          ok: false,
          reason: 'last_owner',
        });
        expect((await p.tenants.membership(t.id, owner.id))?.roleSince).toBe(T0);
      });

      it('lists every tenant id in pages, in id order', async () => {
        const u = await newUser();
        const made = [await newTenant(u.id), await newTenant(u.id), await newTenant(u.id)].map((t) => t.id);
        const all: string[] = [];
        for (let after: string | null = null; ;) {
          const page = await p.tenants.listIds(after, 2);
          all.push(...page);
          if (page.length < 2) break;
          after = page.at(-1)!;
        }
        expect([...all].sort()).toEqual(all);
        expect(new Set(all).size).toBe(all.length);
        expect(all).toEqual(expect.arrayContaining(made));
      });

      it('never demotes the last owner, and reports unknown members', async () => {
        const owner = await newUser();
        const t = await newTenant(owner.id);
        expect(await p.tenants.changeRole(t.id, owner.id, { from: 'owner', to: 'admin', at: at(10) })).toEqual({
          ok: false,
          reason: 'last_owner',
        });
        expect((await p.tenants.membership(t.id, owner.id))?.role).toBe('owner');
        expect(await p.tenants.changeRole(t.id, randomUUID(), { from: 'member', to: 'admin', at: at(10) })).toEqual({
          ok: false,
          reason: 'not_found',
        });
        const second = await newUser();
        await p.tenants.addMember(t.id, { userId: second.id, role: 'owner', isDefault: false, createdAt: at(1) });
        expect(await p.tenants.changeRole(t.id, owner.id, { from: 'owner', to: 'member', at: at(10) })).toMatchObject({
          ok: true,
          previous: 'owner',
        });
      });

      it('removes members but never the last owner, and reports unknown members', async () => {
        const owner = await newUser();
        const t = await newTenant(owner.id);
        expect(await p.tenants.removeMember(t.id, owner.id, 'owner')).toEqual({ ok: false, reason: 'last_owner' });
        expect((await p.tenants.membership(t.id, owner.id))?.role).toBe('owner');
        expect(await p.tenants.removeMember(t.id, randomUUID(), 'viewer')).toEqual({ ok: false, reason: 'not_found' });
        const viewer = await newUser();
        await p.tenants.addMember(t.id, { userId: viewer.id, role: 'viewer', isDefault: false, createdAt: at(1) });
        expect(await p.tenants.removeMember(randomUUID(), viewer.id, 'viewer')).toEqual({ ok: false, reason: 'not_found' }); // another tenant
        expect(await p.tenants.removeMember(t.id, viewer.id, 'viewer')).toMatchObject({
          ok: true,
          member: { userId: viewer.id, role: 'viewer', email: viewer.email },
        });
        expect(await p.tenants.membership(t.id, viewer.id)).toBeNull();
        expect(await p.tenants.removeMember(t.id, viewer.id, 'viewer')).toEqual({ ok: false, reason: 'not_found' });
        const second = await newUser();
        await p.tenants.addMember(t.id, { userId: second.id, role: 'owner', isDefault: false, createdAt: at(2) });
        expect(await p.tenants.removeMember(t.id, owner.id, 'owner')).toMatchObject({ ok: true, member: { role: 'owner' } });
        expect((await p.tenants.listMembers(t.id)).map((m) => m.userId)).toEqual([second.id]);
      });

      it('changes a role or removes a member only while they hold the role the caller read (compare-and-set)', async () => {
        const owner = await newUser();
        const m = await newUser();
        const t = await newTenant(owner.id);
        await p.tenants.addMember(t.id, { userId: m.id, role: 'member', isDefault: false, createdAt: at(1) });
        expect(await p.tenants.changeRole(t.id, m.id, { from: 'viewer', to: 'admin', at: at(10) })).toEqual({
          ok: false,
          reason: 'role_changed',
        });
        expect(await p.tenants.removeMember(t.id, m.id, 'admin')).toEqual({ ok: false, reason: 'role_changed' });
        expect((await p.tenants.membership(t.id, m.id))?.role).toBe('member');
        // A stale owner guard must not let anyone demote or remove an owner: the port rechecks.
        expect(await p.tenants.changeRole(t.id, owner.id, { from: 'admin', to: 'viewer', at: at(10) })).toEqual({
          ok: false,
          reason: 'role_changed',
        });
        expect(await p.tenants.removeMember(t.id, owner.id, 'member')).toEqual({ ok: false, reason: 'role_changed' });
        expect((await p.tenants.membership(t.id, owner.id))?.role).toBe('owner');
        // Unknown members stay not_found whatever role is expected.
        expect(await p.tenants.changeRole(t.id, randomUUID(), { from: 'member', to: 'viewer', at: at(10) })).toEqual({
          ok: false,
          reason: 'not_found',
        });

        // Two changes read from the same role: exactly one lands, the other is told the role changed.
        const results = await Promise.all([
          p.tenants.changeRole(t.id, m.id, { from: 'member', to: 'admin', at: at(10) }),
          p.tenants.changeRole(t.id, m.id, { from: 'member', to: 'viewer', at: at(10) }),
        ]);
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok)).toEqual([{ ok: false, reason: 'role_changed' }]);
        const now = (await p.tenants.membership(t.id, m.id))!.role;
        expect(await p.tenants.removeMember(t.id, m.id, now)).toMatchObject({ ok: true, member: { userId: m.id, role: now } });
      });

      it('sets a tenant status, telling the previous one, and only for that tenant', async () => {
        const owner = await newUser();
        const t = await newTenant(owner.id);
        const bystander = await newTenant(owner.id, at(1), false);
        expect(await p.tenants.setStatus(t.id, 'suspended')).toEqual({ tenant: { ...t, status: 'suspended' }, previous: 'active' });
        expect((await p.tenants.get(t.id))?.status).toBe('suspended');
        expect((await p.tenants.listForUser(owner.id)).map((u) => u.tenant.status)).toEqual(['suspended', 'active']);
        expect((await p.tenants.get(bystander.id))?.status).toBe('active');
        expect(await p.tenants.setStatus(t.id, 'active')).toMatchObject({ previous: 'suspended', tenant: { status: 'active' } });
        expect(await p.tenants.setStatus(randomUUID(), 'suspended')).toBeNull();
      });

      it('keeps tenants apart: membership of one tenant says nothing about another', async () => {
        const a = await newUser();
        const b = await newUser();
        const ta = await newTenant(a.id);
        const tb = await newTenant(b.id);
        expect(await p.tenants.membership(tb.id, a.id)).toBeNull();
        expect(await p.tenants.getMember(ta.id, b.id)).toBeNull();
        expect((await p.tenants.listMembers(ta.id)).map((m) => m.userId)).toEqual([a.id]);
      });
    });

    describe('sessions and refresh tokens', () => {
      const newSession = async (channel: SessionRecord['channel'] = 'api'): Promise<SessionRecord> => {
        const u = await newUser();
        const s: SessionRecord = {
          id: randomUUID(),
          userId: u.id,
          tenantId: randomUUID(),
          method: 'password',
          channel,
          ip: '127.0.0.1',
          userAgent: 'ua',
          createdAt: at(0),
          authenticatedAt: at(0),
          expiresAt: at(60),
          revokedAt: null,
          revokeReason: null,
        };
        return s;
      };

      it('keeps the channel a session serves (api or portal)', async () => {
        for (const channel of ['api', 'portal'] as const) {
          const s = await newSession(channel);
          await p.sessions.create(s, { id: randomUUID(), sessionId: s.id, secretHash: hash(), createdAt: at(0), rotatedAt: null });
          expect((await p.sessions.get(s.id))?.channel).toBe(channel);
        }
      });

      it('stores a session with its first refresh token and reads both back (hash bytes intact)', async () => {
        const s = await newSession();
        const refresh = { id: randomUUID(), sessionId: s.id, secretHash: hash(), createdAt: at(0), rotatedAt: null };
        await p.sessions.create(s, refresh);
        expect(await p.sessions.get(s.id)).toEqual(s);
        expect(await p.sessions.findRefreshToken(refresh.id)).toEqual(refresh);
        expect(await p.sessions.findRefreshToken(randomUUID())).toBeNull();
        expect(await p.sessions.get(randomUUID())).toBeNull();
      });

      it('rotates a refresh token exactly once and slides the session expiry', async () => {
        const s = await newSession();
        const first = { id: randomUUID(), sessionId: s.id, secretHash: hash(), createdAt: at(0), rotatedAt: null };
        await p.sessions.create(s, first);
        const next = { id: randomUUID(), sessionId: s.id, secretHash: hash(), createdAt: at(10), rotatedAt: null };
        expect(await p.sessions.rotateRefreshToken(first.id, at(10), next, at(70))).toBe('rotated');
        expect((await p.sessions.findRefreshToken(first.id))?.rotatedAt).toBe(at(10));
        expect(await p.sessions.findRefreshToken(next.id)).toMatchObject({ sessionId: s.id, rotatedAt: null });
        expect((await p.sessions.get(s.id))?.expiresAt).toBe(at(70));
        const again = { id: randomUUID(), sessionId: s.id, secretHash: hash(), createdAt: at(11), rotatedAt: null };
        expect(await p.sessions.rotateRefreshToken(first.id, at(11), again, at(71))).toBe('already_rotated');
        expect(await p.sessions.findRefreshToken(again.id)).toBeNull();
      });

      it('of two concurrent rotations of one token, exactly one wins', async () => {
        const s = await newSession();
        const first = { id: randomUUID(), sessionId: s.id, secretHash: hash(), createdAt: at(0), rotatedAt: null };
        await p.sessions.create(s, first);
        const results = await Promise.all(
          [1, 2].map((i) =>
            p.sessions.rotateRefreshToken(
              first.id,
              at(i),
              { id: randomUUID(), sessionId: s.id, secretHash: hash(), createdAt: at(i), rotatedAt: null },
              at(60 + i),
            ),
          ),
        );
        expect(results.sort()).toEqual(['already_rotated', 'rotated']);
      });

      it('revokes one session, or all of a user’s, keeping the first revocation time', async () => {
        const s = await newSession();
        await p.sessions.create(s, { id: randomUUID(), sessionId: s.id, secretHash: hash(), createdAt: at(0), rotatedAt: null });
        await p.sessions.revoke(s.id, at(5), 'revoked');
        await p.sessions.revoke(s.id, at(6), 'again');
        expect(await p.sessions.get(s.id)).toMatchObject({ revokedAt: at(5), revokeReason: 'revoked' });
        const s2 = { ...(await newSession()) };
        const s3 = { ...s2, id: randomUUID() };
        await p.sessions.create(s2, { id: randomUUID(), sessionId: s2.id, secretHash: hash(), createdAt: at(0), rotatedAt: null });
        await p.sessions.create(s3, { id: randomUUID(), sessionId: s3.id, secretHash: hash(), createdAt: at(0), rotatedAt: null });
        expect(await p.sessions.revokeAllForUser(s2.userId, at(7), 'password_changed')).toBe(2);
        expect((await p.sessions.get(s3.id))?.revokedAt).toBe(at(7));
      });

      it('purges sessions that ended before a cutoff, with their refresh tokens, and nothing else', async () => {
        // Times far before every other test's sessions, so the purge touches only these.
        const expired = { ...(await newSession()), createdAt: at(-9000), authenticatedAt: at(-9000), expiresAt: at(-6000) };
        const revoked = { ...(await newSession()), createdAt: at(-9000), authenticatedAt: at(-9000), expiresAt: at(60) };
        const endedLater = { ...(await newSession()), createdAt: at(-9000), authenticatedAt: at(-9000), expiresAt: at(-4000) };
        const tokens = new Map<string, string>();
        for (const s of [expired, revoked, endedLater]) {
          const id = randomUUID();
          tokens.set(s.id, id);
          await p.sessions.create(s, { id, sessionId: s.id, secretHash: hash(), createdAt: at(-9000), rotatedAt: null });
        }
        await p.sessions.revoke(revoked.id, at(-6000), 'revoked');
        expect(await p.sessions.purgeEnded(at(-5000))).toBe(2);
        expect(await p.sessions.get(expired.id)).toBeNull();
        expect(await p.sessions.get(revoked.id)).toBeNull();
        expect(await p.sessions.findRefreshToken(tokens.get(expired.id)!)).toBeNull();
        expect(await p.sessions.findRefreshToken(tokens.get(revoked.id)!)).toBeNull();
        expect(await p.sessions.get(endedLater.id)).not.toBeNull();
        expect(await p.sessions.findRefreshToken(tokens.get(endedLater.id)!)).not.toBeNull();
        expect(await p.sessions.purgeEnded(at(-5000))).toBe(0);
      });
    });

    describe('step-up tokens', () => {
      it('are found only within their tenant and can be deleted or purged when expired', async () => {
        const token = {
          id: randomUUID(),
          secretHash: hash(),
          userId: randomUUID(),
          tenantId: randomUUID(),
          sessionId: randomUUID(),
          action: 'data.export',
          createdAt: at(0),
          expiresAt: at(5),
        };
        await p.stepUp.create(token);
        expect(await p.stepUp.find(token.tenantId, token.id)).toEqual(token);
        expect(await p.stepUp.find(randomUUID(), token.id)).toBeNull();
        await p.stepUp.delete(randomUUID(), token.id);
        expect(await p.stepUp.find(token.tenantId, token.id)).not.toBeNull();
        const old = { ...token, id: randomUUID(), expiresAt: at(-1) };
        await p.stepUp.create(old);
        expect(await p.stepUp.deleteExpired(at(0))).toBeGreaterThanOrEqual(1);
        expect(await p.stepUp.find(old.tenantId, old.id)).toBeNull();
        await p.stepUp.delete(token.tenantId, token.id);
        expect(await p.stepUp.find(token.tenantId, token.id)).toBeNull();
      });
    });

    describe('break-glass requests', () => {
      const pending = (tenantId: string, requesterId: string, createdAt = at(0)): BreakGlassRecord => ({
        id: randomUUID(),
        tenantId,
        requesterId,
        reason: 'incident',
        durationMinutes: 30,
        status: 'pending',
        createdAt,
        decidedAt: null,
        decidedBy: null,
        expiresAt: null,
      });

      it('decides a pending request once; other tenants see nothing', async () => {
        const tenant = randomUUID();
        const r = pending(tenant, randomUUID());
        await p.breakGlass.create(r);
        expect(await p.breakGlass.get(tenant, r.id)).toEqual(r);
        expect(await p.breakGlass.get(randomUUID(), r.id)).toBeNull();
        expect(
          await p.breakGlass.decide(randomUUID(), r.id, { status: 'approved', decidedBy: 'x', decidedAt: at(1), expiresAt: at(31) }),
        ).toEqual({ ok: false, reason: 'not_found' });
        const ok = await p.breakGlass.decide(tenant, r.id, { status: 'approved', decidedBy: 'boss', decidedAt: at(1), expiresAt: at(31) });
        expect(ok).toEqual({ ok: true, record: { ...r, status: 'approved', decidedBy: 'boss', decidedAt: at(1), expiresAt: at(31) } });
        expect(await p.breakGlass.decide(tenant, r.id, { status: 'denied', decidedBy: 'boss', decidedAt: at(2), expiresAt: null })).toEqual(
          { ok: false, reason: 'already_decided' },
        );
      });

      it('finds a live grant by time and expires due ones once', async () => {
        const tenant = randomUUID();
        const user = randomUUID();
        const r = pending(tenant, user);
        await p.breakGlass.create(r);
        await p.breakGlass.decide(tenant, r.id, { status: 'approved', decidedBy: 'boss', decidedAt: at(1), expiresAt: at(31) });
        expect((await p.breakGlass.activeGrant(tenant, user, at(30), T0))?.id).toBe(r.id);
        expect(await p.breakGlass.activeGrant(tenant, user, at(31), T0)).toBeNull();
        expect(await p.breakGlass.activeGrant(randomUUID(), user, at(30), T0)).toBeNull();
        // Requested before the holder's current role was set: it never counts.
        expect(await p.breakGlass.activeGrant(tenant, user, at(30), at(0.5))).toBeNull();
        expect(await p.breakGlass.expireDue(tenant, at(10))).toEqual([]);
        expect((await p.breakGlass.expireDue(tenant, at(40))).map((x) => [x.id, x.status])).toEqual([[r.id, 'expired']]);
        expect(await p.breakGlass.expireDue(tenant, at(40))).toEqual([]);
        expect((await p.breakGlass.get(tenant, r.id))?.status).toBe('expired');
      });

      it('ends a requester’s pending requests (denied) and live grants (expired now), and nothing else', async () => {
        const tenant = randomUUID();
        const user = randomUUID();
        const live = pending(tenant, user);
        const waiting = pending(tenant, user);
        const over = pending(tenant, user);
        const refused = pending(tenant, user);
        const someoneElses = pending(tenant, randomUUID());
        const otherTenant = pending(randomUUID(), user);
        for (const r of [live, waiting, over, refused, someoneElses, otherTenant]) await p.breakGlass.create(r);
        await p.breakGlass.decide(tenant, live.id, { status: 'approved', decidedBy: 'boss', decidedAt: at(1), expiresAt: at(60) });
        await p.breakGlass.decide(tenant, over.id, { status: 'approved', decidedBy: 'boss', decidedAt: at(1), expiresAt: at(5) });
        await p.breakGlass.decide(tenant, refused.id, { status: 'denied', decidedBy: 'boss', decidedAt: at(1), expiresAt: null });

        const ended = await p.breakGlass.endFor(tenant, user, { at: at(10), by: 'admin-1' });
        expect(ended.sort((a, b) => a.previous.localeCompare(b.previous))).toEqual([
          { previous: 'approved', record: { ...live, status: 'expired', decidedBy: 'boss', decidedAt: at(1), expiresAt: at(10) } },
          { previous: 'pending', record: { ...waiting, status: 'denied', decidedBy: 'admin-1', decidedAt: at(10) } },
        ]);
        expect(await p.breakGlass.get(tenant, live.id)).toEqual(ended[0]!.record);
        expect(await p.breakGlass.get(tenant, waiting.id)).toEqual(ended[1]!.record);
        expect(await p.breakGlass.activeGrant(tenant, user, at(10), T0)).toBeNull();
        // A grant already past its expiry is left to expireDue; decided, other requesters' and other tenants' stay.
        expect((await p.breakGlass.get(tenant, over.id))?.status).toBe('approved');
        expect((await p.breakGlass.get(tenant, refused.id))?.status).toBe('denied');
        expect((await p.breakGlass.get(tenant, someoneElses.id))?.status).toBe('pending');
        expect((await p.breakGlass.get(otherTenant.tenantId, otherTenant.id))?.status).toBe('pending');
        expect(await p.breakGlass.endFor(tenant, user, { at: at(11), by: 'admin-1' })).toEqual([]);
      });

      it('lists newest first, optionally by requester', async () => {
        const tenant = randomUUID();
        const alice = randomUUID();
        const r1 = pending(tenant, alice, at(1));
        const r2 = pending(tenant, randomUUID(), at(2));
        await p.breakGlass.create(r1);
        await p.breakGlass.create(r2);
        expect((await p.breakGlass.list(tenant)).map((r) => r.id)).toEqual([r2.id, r1.id]);
        expect((await p.breakGlass.list(tenant, { requesterId: alice })).map((r) => r.id)).toEqual([r1.id]);
        expect(await p.breakGlass.list(randomUUID())).toEqual([]);
      });
    });

    describe('audit log', () => {
      const event = (
        tenantId: string,
        head: { seq: number; hash: string } | null,
        extra: Partial<AuditEventRecord> = {},
      ): AuditEventRecord => ({
        id: randomUUID(),
        tenantId,
        seq: (head?.seq ?? 0) + 1,
        type: 'auth.login',
        actor: { userId: 'u1' },
        ip: '127.0.0.1',
        userAgent: 'ua',
        target: { type: 'session', id: 's1' },
        details: { method: 'password', nested: { n: 1 } },
        createdAt: T0,
        prevHash: head?.hash ?? '0'.repeat(64),
        hash: randomBytes(32).toString('hex'),
        ...extra,
      });

      it('appends on the head, reads events back intact, pages newest first and ranges oldest first', async () => {
        const tenant = randomUUID();
        const written: AuditEventRecord[] = [];
        for (let i = 0; i < 5; i++)
          written.push(
            await p.audit.append(tenant, (head) =>
              event(tenant, head, i === 2 ? { actor: { keyId: 'k' }, target: null, details: null, ip: null, userAgent: null } : {}),
            ),
          );
        expect(written.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
        expect(written[3]!.prevHash).toBe(written[2]!.hash);
        expect(await p.audit.head(tenant)).toEqual({ seq: 5, hash: written[4]!.hash });
        const page = await p.audit.list(tenant, { limit: 2, offset: 1 });
        expect(page.total).toBe(5);
        expect(page.events).toEqual([written[3], written[2]]);
        expect(await p.audit.range(tenant, 2, 10)).toEqual(written.slice(2));
        expect(await p.audit.head(randomUUID())).toBeNull();
        expect((await p.audit.list(randomUUID(), { limit: 10, offset: 0 })).total).toBe(0);
      });

      it('serialises concurrent appends into one unforked chain', async () => {
        const tenant = randomUUID();
        await Promise.all(Array.from({ length: 20 }, () => p.audit.append(tenant, (head) => event(tenant, head))));
        const all = await p.audit.range(tenant, 0, 100);
        expect(all.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
        for (let i = 1; i < all.length; i++) expect(all[i]!.prevHash).toBe(all[i - 1]!.hash);
      });
    });
  });
}

onEmbeddedAndMongo('identity ports contract', contract, {
  embedded: (db) => ({
    users: createEmbeddedUserStore(db),
    tenants: createEmbeddedTenantStore(db),
    sessions: createEmbeddedSessionStore(db),
    stepUp: createEmbeddedStepUpTokenStore(db),
    breakGlass: createEmbeddedBreakGlassStore(db),
    audit: createEmbeddedAuditStore(db),
  }),
  mongo: async (db) => ({
    users: await createMongoUserStore(db),
    tenants: await createMongoTenantStore(db),
    sessions: await createMongoSessionStore(db),
    stepUp: await createMongoStepUpTokenStore(db),
    breakGlass: await createMongoBreakGlassStore(db),
    audit: await createMongoAuditStore(db),
  }),
  mongoDbName: 'tm_contract_identity',
});
