import { Writable } from 'node:stream';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedAttemptCounters } from '../../adapters/embedded/attempt-counters.js';
import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { createEmbeddedBreakGlassStore } from '../../adapters/embedded/break-glass.js';
import { openInMemoryDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedSessionStore } from '../../adapters/embedded/sessions.js';
import { createEmbeddedStepUpTokenStore } from '../../adapters/embedded/step-up.js';
import { createEmbeddedTenantStore } from '../../adapters/embedded/tenants.js';
import { createEmbeddedUserStore } from '../../adapters/embedded/users.js';
import { createLogger } from '../../server/logger.js';
import type { AuditEventRecord } from '../../server/ports/audit.js';
import { createAddressBudget } from '../../server/services/address-budget.js';
import { createAuditService, type AuditService } from '../../server/services/audit.js';
import { createAuthService, RECENT_SIGN_IN_MS, type AuthService, type AuthServiceDeps } from '../../server/services/auth.js';
import { createBreakGlassService, type BreakGlassService } from '../../server/services/break-glass.js';
import { createLoginThrottle } from '../../server/services/login-throttle.js';
import { createPasswordHasher } from '../../server/services/passwords.js';
import { breakGlassPermissions, roleByName } from '../../server/services/roles.js';
import { createTenantsService } from '../../server/services/tenants.js';
import { tenancyFixtures } from '../support/identity-stores.js';
import { appError } from '../support/app-error.js';

// The auth service over the real embedded ports, with a clock the tests move. Written to kill the
// mutants the HTTP suites let live (see docs/mutation-testing.md): the exact audit records of sign-in,
// refresh reuse, revoke and step-up, the refresh race, and the instants where a session, a recent
// sign-in and a step-up token end.

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const SECRET = 'a test secret of more than thirty-two characters';
const config = {
  jwtSecret: SECRET,
  ACCESS_TOKEN_TTL_SECONDS: 900,
  SESSION_TTL_SECONDS: 3600,
  STEP_UP_TTL_SECONDS: 120,
  SIGNUP_ENABLED: true,
};
const meta = { ip: '203.0.113.9', userAgent: 'mutants/1' };
const PASSWORD = 'correct horse battery';
const hasher = createPasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

let clock: number;
let deps: AuthServiceDeps;
let auth: AuthService;
let audit: AuditService;
let breakGlass: BreakGlassService;
let ports: {
  users: ReturnType<typeof createEmbeddedUserStore>;
  tenants: ReturnType<typeof createEmbeddedTenantStore>;
  sessions: ReturnType<typeof createEmbeddedSessionStore>;
};
/** The JSON log lines, where `recordUnscoped` writes. */
let logs: string[];

beforeEach(() => {
  clock = T0;
  logs = [];
  const now = () => clock;
  const db = openInMemoryDatabase();
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  const logger = createLogger('info', sink);
  ports = { users: createEmbeddedUserStore(db), tenants: createEmbeddedTenantStore(db), sessions: createEmbeddedSessionStore(db) };
  audit = createAuditService({ audit: createEmbeddedAuditStore(db), logger, clock: now });
  const counters = createEmbeddedAttemptCounters(db);
  breakGlass = createBreakGlassService({ breakGlass: createEmbeddedBreakGlassStore(db), audit, maxMinutes: 60, clock: now });
  deps = {
    config,
    users: ports.users,
    tenants: ports.tenants,
    sessions: ports.sessions,
    stepUpTokens: createEmbeddedStepUpTokenStore(db),
    tenantsService: createTenantsService({ tenants: ports.tenants, audit, clock: now }),
    breakGlass,
    audit,
    passwords: hasher,
    throttle: createLoginThrottle({ perKeyAndIp: 3, perKey: 30, perIp: 50, windowSeconds: 900 }, counters),
    signupBudget: createAddressBudget({ keyPrefix: 'signup_ip', perWindow: 0, windowSeconds: 3600, what: 'sign-ups' }, counters),
    logger,
    clock: now,
  };
  auth = createAuthService(deps);
});

const { tenantWith } = tenancyFixtures(() => ({
  users: ports.users,
  tenants: ports.tenants,
  tenantsService: deps.tenantsService as ReturnType<typeof createTenantsService>,
  usersCreatedAt: iso(T0),
  membersJoinedAt: T0,
  meta,
}));

/** An audit event without its id, sequence, time and chain fields. */
const content = (e: AuditEventRecord | undefined) =>
  e && { type: e.type, actor: e.actor, ip: e.ip, userAgent: e.userAgent, target: e.target, details: e.details };

async function newest(tenantId: string) {
  return content((await audit.list(tenantId, { limit: 1, offset: 0 })).events[0]);
}

async function eventOf(tenantId: string, type: string) {
  return content((await audit.list(tenantId, { limit: 100, offset: 0 })).events.find((e) => e.type === type));
}

/** The `audit` objects of the unscoped audit log lines. */
const unscoped = () => logs.map((l) => JSON.parse(l) as { audit?: Record<string, unknown> }).flatMap((l) => (l.audit ? [l.audit] : []));

const sessionIdOf = (accessToken: string) => decodeJwt(accessToken).sid as string;
const tokenIdOf = (opaque: string) => opaque.slice(4).split('.')[0]!;

const signUp = (email = `u-${Math.random().toString(36).slice(2)}@example.test`) => auth.signup({ email, password: PASSWORD }, meta);

/** A user without a password (SSO) with a default tenant, signed in now. */
async function ssoUser() {
  const { user, tenant } = await auth.provisionUser({
    email: `sso-${Math.random().toString(36).slice(2)}@example.test`,
    passwordHash: null,
  });
  const tokens = await auth.issueSession(user.id, tenant.id, { ...meta, method: 'sso' });
  return { ...tokens, principal: { userId: user.id, tenantId: tenant.id, sessionId: sessionIdOf(tokens.accessToken) } };
}

const principalOf = (t: { userId: string; tenantId: string; accessToken: string }) => ({
  userId: t.userId,
  tenantId: t.tenantId,
  sessionId: sessionIdOf(t.accessToken),
});

/** An access token signed with the service's own key, with any claims. */
function forge(claims: Record<string, unknown>) {
  const iat = Math.floor(clock / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer('tenant-memory')
    .setAudience('tenant-memory')
    .setIssuedAt(iat)
    .setExpirationTime(iat + 900)
    .sign(new TextEncoder().encode(SECRET));
}

describe('sign-up and provisioning', () => {
  it('stores the trimmed lower-cased email and trimmed name, names the tenant after the user and audits user.signup', async () => {
    const { user, tenant } = await auth.provisionUser({ email: '  Ann.Lee@Example.COM ', name: '  Ann  ', passwordHash: null }, meta);
    expect(user).toMatchObject({ email: 'ann.lee@example.com', name: 'Ann', passwordHash: null, createdAt: iso(T0) });
    expect(tenant).toMatchObject({ name: "Ann's workspace", plan: 'free', status: 'active' });
    expect(await ports.tenants.membership(tenant.id, user.id)).toMatchObject({ role: 'owner', isDefault: true });
    expect(await eventOf(tenant.id, 'user.signup')).toEqual({
      type: 'user.signup',
      actor: { userId: user.id },
      ip: meta.ip,
      userAgent: meta.userAgent,
      target: { type: 'user', id: user.id },
      details: { method: 'sso' },
    });
  });

  it('a password sign-up without a name: the tenant is named after the email, both records say password', async () => {
    const t = await auth.signup({ email: 'Bo@Example.test', password: PASSWORD }, meta);
    expect((await ports.tenants.get(t.tenantId))?.name).toBe("bo's workspace");
    expect((await eventOf(t.tenantId, 'user.signup'))?.details).toEqual({ method: 'password' });
    const sessionId = sessionIdOf(t.accessToken);
    expect(await eventOf(t.tenantId, 'auth.login')).toEqual({
      type: 'auth.login',
      actor: { userId: t.userId },
      ip: meta.ip,
      userAgent: meta.userAgent,
      target: { type: 'session', id: sessionId },
      details: { method: 'password' },
    });
    // The injected clock, not the system's.
    expect(await ports.sessions.get(sessionId)).toMatchObject({
      createdAt: iso(T0),
      authenticatedAt: iso(T0),
      expiresAt: iso(T0 + config.SESSION_TTL_SECONDS * 1000),
    });
  });

  it('removes the user again when their default tenant cannot be created', async () => {
    // A tenant store on another database: the owner's membership breaks its foreign key there.
    const elsewhere = createTenantsService({ tenants: createEmbeddedTenantStore(openInMemoryDatabase()), audit, clock: () => clock });
    const broken = createAuthService({ ...deps, tenantsService: elsewhere });
    const err = await broken.provisionUser({ email: 'half@example.test', passwordHash: null }, meta).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(TypeError);
    expect(await ports.users.findByEmail('half@example.test')).toBeNull();
  });
});

describe('login', () => {
  it('finds the account whatever the case and surrounding spaces of the email typed', async () => {
    const t = await signUp('carol@example.test');
    expect((await auth.login({ email: '  CAROL@Example.test ', password: PASSWORD }, meta)).userId).toBe(t.userId);
  });

  it('a wrong password is recorded in the user’s tenant as auth.login_failed, wrong_password', async () => {
    const t = await signUp('dave@example.test');
    expect((await appError(auth.login({ email: 'dave@example.test', password: 'not it at all' }, meta))).code).toBe('UNAUTHENTICATED');
    expect(await newest(t.tenantId)).toEqual({
      type: 'auth.login_failed',
      actor: {},
      ip: meta.ip,
      userAgent: meta.userAgent,
      target: { type: 'user', id: t.userId },
      details: { method: 'password', reason: 'wrong_password' },
    });
  });

  it('a password sign-in to an account without a password is recorded as no_password', async () => {
    const sso = await ssoUser();
    const { email } = (await ports.users.findById(sso.userId))!;
    expect((await appError(auth.login({ email, password: PASSWORD }, meta))).code).toBe('UNAUTHENTICATED');
    expect(await newest(sso.tenantId)).toMatchObject({
      target: { type: 'user', id: sso.userId },
      details: { method: 'password', reason: 'no_password' },
    });
  });

  it('an unknown email is logged as an unscoped auth.login_failed with the normalised email', async () => {
    expect((await appError(auth.login({ email: ' Nobody@Example.test', password: PASSWORD }, meta))).code).toBe('UNAUTHENTICATED');
    expect(unscoped()).toEqual([
      {
        type: 'auth.login_failed',
        ip: meta.ip,
        user_agent: meta.userAgent,
        method: 'password',
        email: 'nobody@example.test',
        reason: 'unknown_email',
      },
    ]);
  });

  it('an account in no tenant: a wrong password is logged as no_tenant, the right one answers 403', async () => {
    await ports.users.create({
      id: 'u-alone',
      email: 'alone@example.test',
      name: null,
      passwordHash: await hasher.hash(PASSWORD),
      createdAt: iso(T0),
    });
    await appError(auth.login({ email: 'alone@example.test', password: 'not it at all' }, meta));
    expect(unscoped()).toEqual([expect.objectContaining({ type: 'auth.login_failed', email: 'alone@example.test', reason: 'no_tenant' })]);
    expect((await appError(auth.login({ email: 'alone@example.test', password: PASSWORD }, meta))).code).toBe('FORBIDDEN');
  });
});

describe('access tokens', () => {
  it('carry the type, issuer, audience and the session’s claims', async () => {
    const t = await signUp();
    expect(decodeProtectedHeader(t.accessToken)).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    expect(decodeJwt(t.accessToken)).toEqual({
      iss: 'tenant-memory',
      aud: 'tenant-memory',
      sub: t.userId,
      tid: t.tenantId,
      sid: expect.any(String),
      iat: T0 / 1000,
      exp: T0 / 1000 + config.ACCESS_TOKEN_TTL_SECONDS,
      jti: expect.any(String),
    });
  });

  // `true` is left out on purpose: binding a boolean aborts the libsql process.
  it.each([
    ['sub', 42],
    ['tid', 42],
    ['sid', { id: 'x' }],
  ])('a signed token whose %s is %j is refused, and revokes nothing', async (claim, value) => {
    const t = await signUp();
    const sid = sessionIdOf(t.accessToken);
    const token = await forge({ sub: t.userId, tid: t.tenantId, sid, [claim]: value });
    expect((await appError(auth.authenticateAccessToken(token))).code).toBe('UNAUTHENTICATED');
    expect((await appError(auth.revoke(token, meta))).code).toBe('UNAUTHENTICATED');
    expect((await ports.sessions.get(sid))?.revokedAt).toBeNull();
  });

  it('a signed token naming another user’s session is refused', async () => {
    const [a, b] = [await signUp(), await signUp()];
    const token = await forge({ sub: b.userId, tid: a.tenantId, sid: sessionIdOf(a.accessToken) });
    expect((await appError(auth.authenticateAccessToken(token))).code).toBe('UNAUTHENTICATED');
  });
});

describe('sessions', () => {
  it('end at their expiry instant: a refresh 1 ms before works, one at the instant does not', async () => {
    const first = await signUp('eve@example.test');
    const second = await auth.login({ email: 'eve@example.test', password: PASSWORD }, meta);
    clock = T0 + config.SESSION_TTL_SECONDS * 1000 - 1;
    await auth.refresh(first.refreshToken, meta);
    clock += 1;
    expect((await appError(auth.refresh(second.refreshToken, meta))).code).toBe('UNAUTHENTICATED');
  });

  it('a rotated refresh token presented again revokes the session, recorded as auth.refresh_reuse', async () => {
    const t = await signUp();
    const sessionId = sessionIdOf(t.accessToken);
    const next = await auth.refresh(t.refreshToken, meta);
    clock += 1_000;
    const thief = { ip: '198.51.100.7', userAgent: 'thief/1' };
    expect((await appError(auth.refresh(t.refreshToken, thief))).code).toBe('UNAUTHENTICATED');
    expect(await ports.sessions.get(sessionId)).toMatchObject({ revokedAt: iso(clock), revokeReason: 'refresh_reuse' });
    expect((await appError(auth.refresh(next.refreshToken, meta))).code).toBe('UNAUTHENTICATED');
    expect(await newest(t.tenantId)).toEqual({
      type: 'auth.refresh_reuse',
      actor: { userId: t.userId },
      ip: thief.ip,
      userAgent: thief.userAgent,
      target: { type: 'session', id: sessionId },
      details: { refresh_token_id: tokenIdOf(t.refreshToken) },
    });
  });

  it('two refreshes racing with one token: one wins, the other is reuse and the session ends', async () => {
    const t = await signUp();
    const sessionId = sessionIdOf(t.accessToken);
    // Both read the token before either rotates it: the store's conditional update tells them apart.
    const results = await Promise.allSettled([auth.refresh(t.refreshToken, meta), auth.refresh(t.refreshToken, meta)]);
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    expect(won).toHaveLength(1);
    expect(lost).toEqual([expect.objectContaining({ code: 'UNAUTHENTICATED' })]);
    expect((await ports.sessions.get(sessionId))?.revokeReason).toBe('refresh_reuse');
    expect((await appError(auth.authenticateAccessToken(won[0]!.accessToken))).code).toBe('UNAUTHENTICATED');
  });

  it.each(['access', 'refresh'] as const)('revoking with the %s token ends the session, recorded as auth.revoke', async (kind) => {
    const t = await signUp();
    const sessionId = sessionIdOf(t.accessToken);
    clock += 1_000;
    await auth.revoke(kind === 'access' ? t.accessToken : t.refreshToken, meta);
    expect(await ports.sessions.get(sessionId)).toMatchObject({ revokedAt: iso(clock), revokeReason: 'revoked' });
    expect(await newest(t.tenantId)).toEqual({
      type: 'auth.revoke',
      actor: { userId: t.userId },
      ip: meta.ip,
      userAgent: meta.userAgent,
      target: { type: 'session', id: sessionId },
      details: { via: `${kind}_token` },
    });
  });
});

describe('accessOf', () => {
  it('is the role’s permissions, plus the break-glass permissions while a grant is approved', async () => {
    const { tenantId, actors } = await tenantWith('member');
    const [owner, member] = [actors[0]!, actors[1]!];
    const before = await auth.accessOf(tenantId, member.userId);
    expect(before).toMatchObject({ role: 'member', breakGlass: false, tenantStatus: 'active' });
    expect([...before!.permissions].sort()).toEqual([...roleByName('member')!.permissions].sort());
    const request = await breakGlass.request(member, { reason: 'incident', durationMinutes: 5 }, meta);
    await breakGlass.approve(owner, request.id, meta);
    const during = await auth.accessOf(tenantId, member.userId);
    expect(during?.breakGlass).toBe(true);
    expect(breakGlassPermissions.length).toBeGreaterThan(0);
    for (const p of breakGlassPermissions) expect(during?.permissions.has(p)).toBe(true);
  });
});

describe('step-up', () => {
  it('refuses an action not in the list with VALIDATION_FAILED naming action, and issues nothing', async () => {
    const t = await signUp();
    const before = await newest(t.tenantId);
    const err = await appError(auth.stepUp(principalOf(t), { action: 'data.exfiltrate', password: PASSWORD }, meta));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details?.fields).toEqual([{ field: 'action', message: expect.any(String) }]);
    expect(await newest(t.tenantId)).toEqual(before);
  });

  it('refuses a session that has ended, even with the right password', async () => {
    const t = await signUp();
    await auth.revoke(t.accessToken, meta);
    const err = await appError(auth.stepUp(principalOf(t), { action: 'data.export', password: PASSWORD }, meta));
    expect(err.code).toBe('UNAUTHENTICATED');
  });

  it('with the password: a token for the action, recorded as auth.step_up', async () => {
    const t = await signUp();
    const grant = await auth.stepUp(principalOf(t), { action: 'data.export', password: PASSWORD }, meta);
    expect(grant).toMatchObject({ expiresIn: 120, action: 'data.export' });
    expect(await newest(t.tenantId)).toEqual({
      type: 'auth.step_up',
      actor: { userId: t.userId },
      ip: meta.ip,
      userAgent: meta.userAgent,
      target: { type: 'step_up', id: tokenIdOf(grant.stepUpToken) },
      details: { action: 'data.export', method: 'password', expires_in: 120 },
    });
  });

  it('a wrong password is recorded as auth.step_up_failed', async () => {
    const t = await signUp();
    await appError(auth.stepUp(principalOf(t), { action: 'data.delete', password: 'not it at all' }, meta));
    expect(await newest(t.tenantId)).toEqual({
      type: 'auth.step_up_failed',
      actor: { userId: t.userId },
      ip: meta.ip,
      userAgent: meta.userAgent,
      target: null,
      details: { action: 'data.delete', reason: 'wrong_password' },
    });
  });

  it('without a password: allowed up to exactly 5 minutes after signing in, recorded as recent_sign_in', async () => {
    const u = await ssoUser();
    clock = T0 + RECENT_SIGN_IN_MS;
    const grant = await auth.stepUp(u.principal, { action: 'retention.override' }, meta);
    expect((await newest(u.tenantId))?.details).toEqual({ action: 'retention.override', method: 'recent_sign_in', expires_in: 120 });
    await auth.verifyStepUp(grant.stepUpToken, { ...u.principal, action: 'retention.override' });
  });

  it('without a password: refused 1 ms later, recorded as sign_in_not_recent', async () => {
    const u = await ssoUser();
    clock = T0 + RECENT_SIGN_IN_MS + 1;
    expect((await appError(auth.stepUp(u.principal, { action: 'data.export' }, meta))).code).toBe('UNAUTHENTICATED');
    expect(await newest(u.tenantId)).toEqual({
      type: 'auth.step_up_failed',
      actor: { userId: u.userId },
      ip: meta.ip,
      userAgent: meta.userAgent,
      target: null,
      details: { action: 'data.export', reason: 'sign_in_not_recent' },
    });
  });

  it('password attempts are counted per user: one user’s failures do not lock out another on the same address', async () => {
    const [a, b] = [await signUp(), await signUp()];
    for (let i = 0; i < 3; i++) await appError(auth.stepUp(principalOf(a), { action: 'data.export', password: 'wrong guess' }, meta));
    expect((await appError(auth.stepUp(principalOf(a), { action: 'data.export', password: PASSWORD }, meta))).code).toBe('RATE_LIMITED');
    expect((await auth.stepUp(principalOf(b), { action: 'data.export', password: PASSWORD }, meta)).action).toBe('data.export');
  });

  it('a token is valid until the instant it expires, not at it', async () => {
    const t = await signUp();
    const expected = { ...principalOf(t), action: 'data.delete' as const };
    const { stepUpToken } = await auth.stepUp(principalOf(t), { action: 'data.delete', password: PASSWORD }, meta);
    clock = T0 + config.STEP_UP_TTL_SECONDS * 1000 - 1;
    await auth.verifyStepUp(stepUpToken, expected);
    clock += 1;
    expect((await appError(auth.verifyStepUp(stepUpToken, expected))).code).toBe('STEP_UP_REQUIRED');
  });

  it('a token is accepted with surrounding whitespace', async () => {
    const t = await signUp();
    const { stepUpToken } = await auth.stepUp(principalOf(t), { action: 'data.export', password: PASSWORD }, meta);
    await auth.verifyStepUp(` ${stepUpToken}\n`, { ...principalOf(t), action: 'data.export' });
  });
});
