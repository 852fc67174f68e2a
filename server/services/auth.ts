import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Config } from '../config.js';
import { AppError, forbidden, unauthenticated } from '../errors.js';
import type { Logger } from '../logger.js';
import type { BearerAuthenticator } from '../principal.js';
import type { SessionRecord, SessionStore } from '../ports/sessions.js';
import type { StepUpTokenStore } from '../ports/step-up.js';
import type { TenantRecord, TenantStore } from '../ports/tenants.js';
import type { UserRecord, UserStore } from '../ports/users.js';
import type { AuditService, RequestMeta } from './audit.js';
import type { BreakGlassService } from './break-glass.js';
import { isoAt, systemClock, type Clock } from './clock.js';
import type { LoginThrottle } from './login-throttle.js';
import type { AddressBudget } from './address-budget.js';
import { newOpaqueToken, parseOpaqueToken, randomId, secretMatches } from './opaque-tokens.js';
import { checkPasswordPolicy, type PasswordHasher } from './passwords.js';
import { breakGlassPermissions, roleByName, type Permission, type RoleName } from './roles.js';
import type { TenantsService } from './tenants.js';

/** A signed-in session's tokens (signup, login, refresh and the SSO callback); routers write the wire form. */
export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  /** Seconds until the access token expires. */
  expiresIn: number;
  userId: string;
  tenantId: string;
}

export const stepUpActions = [
  'data.export',
  'data.delete',
  'retention.override',
  // Making someone owner or admin (a role change or an invitation with that role).
  'members.promote',
  // Removing a member from the tenant (others or oneself).
  'members.remove',
  // Changing the tenant-wide memory settings (contradiction policy).
  'settings.memory',
] as const;
export type StepUpAction = (typeof stepUpActions)[number];

export interface StepUpGrant {
  stepUpToken: string;
  /** Seconds until the step-up token expires. */
  expiresIn: number;
  action: StepUpAction;
}

export type SignInMethod = 'password' | 'sso';

/** Refresh tokens and step-up tokens are opaque; these prefixes tell them apart from JWTs. */
export const REFRESH_TOKEN_PREFIX = 'tmr_';
export const STEP_UP_TOKEN_PREFIX = 'tms_';
/** Users without a password prove a recent sign-in instead: within this window. */
export const RECENT_SIGN_IN_MS = 5 * 60_000;

const ACCESS_TOKEN_TYPE = 'at+jwt';
const AUDIENCE = 'tenant-memory';

export interface AuthService extends BearerAuthenticator {
  /** Creates a user with a password and a default tenant, then signs them in. 403 when sign-up is disabled, 409 when the email is taken. */
  signup(input: { email: string; password: string; name?: string | null }, meta: RequestMeta): Promise<SessionTokens>;
  /** Email and password sign-in; one 401 for every kind of failure; 429 when throttled. */
  login(input: { email: string; password: string }, meta: RequestMeta): Promise<SessionTokens>;
  /**
   * The checks of `login` without a session: the user and their primary tenant, for a caller that
   * starts its own kind of session (the portal's cookie). Same 401, 403 and 429 as `login`.
   */
  authenticatePassword(input: { email: string; password: string }, meta: RequestMeta): Promise<{ userId: string; tenantId: string }>;
  /**
   * Starts a session for an already authenticated user in one of their tenants and returns the
   * token response; records `auth.login`. Used by login, signup and the SSO callback.
   */
  issueSession(userId: string, tenantId: string, origin: RequestMeta & { method: SignInMethod }): Promise<SessionTokens>;
  /**
   * Creates a user (lower-cased unique email; `passwordHash` null for SSO-only users) with a default
   * tenant (plan free, status active) they own; records `user.signup` and `tenant.create`.
   * Throws CONFLICT when the email is taken.
   */
  provisionUser(
    input: { email: string; name?: string | null; passwordHash: string | null },
    meta?: RequestMeta,
  ): Promise<{ user: UserRecord; tenant: TenantRecord }>;
  /** Exchanges a refresh token for a new token pair (rotation); reuse of a rotated one revokes the session. */
  refresh(refreshToken: string, meta: RequestMeta): Promise<SessionTokens>;
  /** Ends the session of an access or refresh token: both stop working at once. */
  revoke(token: string, meta: RequestMeta): Promise<void>;
  /** Re-authentication for a sensitive action; returns a short-lived token bound to user, tenant, session and action. */
  stepUp(
    principal: { userId: string; tenantId: string; sessionId: string },
    input: { action: string; password?: string | null },
    meta: RequestMeta,
  ): Promise<StepUpGrant>;
  /**
   * Checks an `X-Step-Up-Token` for one action by one user in one tenant; throws STEP_UP_REQUIRED (403)
   * when it is missing, malformed, expired, for another action, user or tenant, or its session ended;
   * with `sessionId`, also when another session earned it.
   */
  verifyStepUp(
    token: string | null | undefined,
    expected: { userId: string; tenantId: string; action: StepUpAction; sessionId?: string },
  ): Promise<void>;
}

export interface AuthServiceDeps {
  config: Pick<
    Config,
    'jwtSecret' | 'ACCESS_TOKEN_TTL_SECONDS' | 'SESSION_TTL_SECONDS' | 'STEP_UP_TTL_SECONDS' | 'SIGNUP_ENABLED' | 'PUBLIC_URL'
  >;
  users: UserStore;
  tenants: TenantStore;
  sessions: SessionStore;
  stepUpTokens: StepUpTokenStore;
  tenantsService: Pick<TenantsService, 'create' | 'primary'>;
  breakGlass: Pick<BreakGlassService, 'activeGrant'>;
  audit: AuditService;
  passwords: PasswordHasher;
  throttle: LoginThrottle;
  /** Sign-ups per client address (SIGNUP_RATE_LIMIT). */
  signupBudget: AddressBudget;
  logger: Logger;
  clock?: Clock;
}

const invalidCredentials = () => unauthenticated('invalid email or password');
const stepUpRequired = (message = 'a valid step-up token for this action is required') => new AppError('STEP_UP_REQUIRED', message);

export function createAuthService(deps: AuthServiceDeps): AuthService {
  const { config, users, tenants, sessions, stepUpTokens, audit, passwords, throttle, logger } = deps;
  const now = deps.clock ?? systemClock;
  const key = new TextEncoder().encode(config.jwtSecret);
  const issuer = config.PUBLIC_URL ?? 'tenant-memory';

  const sessionIsLive = (s: SessionRecord | null, at: string): s is SessionRecord => !!s && s.revokedAt === null && s.expiresAt > at;

  async function signAccessToken(s: SessionRecord, nowMs: number): Promise<string> {
    const iat = Math.floor(nowMs / 1000);
    return new SignJWT({ tid: s.tenantId, sid: s.id })
      .setProtectedHeader({ alg: 'HS256', typ: ACCESS_TOKEN_TYPE })
      .setSubject(s.userId)
      .setIssuer(issuer)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + config.ACCESS_TOKEN_TTL_SECONDS)
      .setJti(randomId())
      .sign(key);
  }

  async function sessionTokens(s: SessionRecord, refreshToken: string, nowMs: number): Promise<SessionTokens> {
    return {
      accessToken: await signAccessToken(s, nowMs),
      refreshToken,
      tokenType: 'Bearer',
      expiresIn: config.ACCESS_TOKEN_TTL_SECONDS,
      userId: s.userId,
      tenantId: s.tenantId,
    };
  }

  /** Verifies signature, type, issuer, audience, expiry and that every claim we issue is there; returns the claims we use. */
  async function readAccessToken(token: string): Promise<{ userId: string; tenantId: string; sessionId: string }> {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        typ: ACCESS_TOKEN_TYPE,
        issuer,
        audience: AUDIENCE,
        // jose checks exp and iat only when present: a token without an expiry would never expire.
        requiredClaims: ['exp', 'iat', 'sub', 'tid', 'sid'],
        currentDate: new Date(now()),
      });
      const { sub, tid, sid } = payload as { sub?: unknown; tid?: unknown; sid?: unknown };
      if (typeof sub !== 'string' || typeof tid !== 'string' || typeof sid !== 'string') throw unauthenticated('invalid access token');
      return { userId: sub, tenantId: tid, sessionId: sid };
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof joseErrors.JWTExpired) throw unauthenticated('access token expired');
      throw unauthenticated('invalid access token');
    }
  }

  const service: AuthService = {
    async signup(input, meta) {
      if (!config.SIGNUP_ENABLED) throw forbidden('sign-up is disabled on this server');
      await deps.signupBudget.consume(meta.ip ?? 'unknown');
      checkPasswordPolicy(input.password);
      const passwordHash = await passwords.hash(input.password);
      const { user, tenant } = await service.provisionUser({ email: input.email, name: input.name ?? null, passwordHash }, meta);
      return service.issueSession(user.id, tenant.id, { ...meta, method: 'password' });
    },

    async provisionUser(input, meta = { ip: null, userAgent: null }) {
      const email = input.email.trim().toLowerCase();
      const name = input.name?.trim() || null;
      const createdAt = isoAt(now());
      const user = await users.create({ id: randomUUID(), email, name, passwordHash: input.passwordHash, createdAt });
      if (!user) throw new AppError('CONFLICT', 'an account with this email already exists');
      let tenant: TenantRecord;
      try {
        const created = await deps.tenantsService.create(
          user.id,
          { name: `${name ?? email.split('@')[0]}'s workspace`, isDefault: true },
          meta,
        );
        tenant = created.tenant;
      } catch (err) {
        await users.delete(user.id); // no half-provisioned user without a tenant
        throw err;
      }
      await audit.record({
        tenantId: tenant.id,
        type: 'user.signup',
        actor: { userId: user.id },
        ...meta,
        target: { type: 'user', id: user.id },
        details: { method: input.passwordHash === null ? 'sso' : 'password' },
      });
      return { user, tenant };
    },

    async login(input, meta) {
      const { userId, tenantId } = await service.authenticatePassword(input, meta);
      return service.issueSession(userId, tenantId, { ...meta, method: 'password' });
    },

    async authenticatePassword(input, meta) {
      const email = input.email.trim().toLowerCase();
      const ip = meta.ip ?? 'unknown';
      // Reserved before the password is checked: concurrent guesses each spend a point.
      const attempt = await throttle.reserve(email, ip);
      const user = await users.findByEmail(email);
      const ok = user?.passwordHash
        ? await passwords.verify(user.passwordHash, input.password)
        : await passwords.verifyDummy(input.password);
      const primary = user ? await deps.tenantsService.primary(user.id) : null;
      if (!ok || !user) {
        if (primary) {
          await audit.record({
            tenantId: primary.tenant.id,
            type: 'auth.login_failed',
            actor: {},
            ...meta,
            target: { type: 'user', id: primary.membership.userId },
            details: { method: 'password', reason: user?.passwordHash ? 'wrong_password' : 'no_password' },
          });
        } else {
          audit.recordUnscoped('auth.login_failed', {
            ...meta,
            details: { method: 'password', email, reason: user ? 'no_tenant' : 'unknown_email' },
          });
        }
        throw invalidCredentials();
      }
      await attempt.succeeded();
      if (!primary) throw forbidden('this account is not a member of any tenant');
      if (passwords.needsRehash(user.passwordHash!)) {
        await users.setPasswordHash(user.id, await passwords.hash(input.password));
      }
      return { userId: user.id, tenantId: primary.tenant.id };
    },

    async issueSession(userId, tenantId, origin) {
      const nowMs = now();
      const at = isoAt(nowMs);
      const refresh = newOpaqueToken(REFRESH_TOKEN_PREFIX);
      const session: SessionRecord = {
        id: randomUUID(),
        userId,
        tenantId,
        method: origin.method,
        channel: 'api',
        ip: origin.ip,
        userAgent: origin.userAgent,
        createdAt: at,
        authenticatedAt: at,
        expiresAt: isoAt(nowMs + config.SESSION_TTL_SECONDS * 1000),
        revokedAt: null,
        revokeReason: null,
      };
      await sessions.create(session, {
        id: refresh.id,
        sessionId: session.id,
        secretHash: refresh.secretHash,
        createdAt: at,
        rotatedAt: null,
      });
      await audit.record({
        tenantId,
        type: 'auth.login',
        actor: { userId },
        ip: origin.ip,
        userAgent: origin.userAgent,
        target: { type: 'session', id: session.id },
        details: { method: origin.method },
      });
      return sessionTokens(session, refresh.token, nowMs);
    },

    async refresh(refreshToken, meta) {
      const parsed = parseOpaqueToken(refreshToken, REFRESH_TOKEN_PREFIX);
      if (!parsed) throw unauthenticated('invalid refresh token');
      const stored = await sessions.findRefreshToken(parsed.id);
      if (!stored || !secretMatches(parsed.secret, stored.secretHash)) throw unauthenticated('invalid refresh token');
      const nowMs = now();
      const at = isoAt(nowMs);
      const session = await sessions.get(stored.sessionId);
      // A portal cookie's credential has the refresh token's form: it never buys bearer tokens.
      if (session?.channel === 'portal') throw unauthenticated('invalid refresh token');
      if (!sessionIsLive(session, at)) throw unauthenticated('session has ended');

      const reuse = async () => {
        await sessions.revoke(session.id, at, 'refresh_reuse');
        await audit.record({
          tenantId: session.tenantId,
          type: 'auth.refresh_reuse',
          actor: { userId: session.userId },
          ...meta,
          target: { type: 'session', id: session.id },
          details: { refresh_token_id: stored.id },
        });
        logger.warn({ sessionId: session.id, userId: session.userId }, 'rotated refresh token presented again; session revoked');
        return unauthenticated('refresh token was already used; the session has been revoked');
      };
      if (stored.rotatedAt !== null) throw await reuse();

      const next = newOpaqueToken(REFRESH_TOKEN_PREFIX);
      const expiresAt = isoAt(nowMs + config.SESSION_TTL_SECONDS * 1000);
      const result = await sessions.rotateRefreshToken(
        stored.id,
        at,
        { id: next.id, sessionId: session.id, secretHash: next.secretHash, createdAt: at, rotatedAt: null },
        expiresAt,
      );
      if (result === 'already_rotated') throw await reuse();
      return sessionTokens({ ...session, expiresAt }, next.token, nowMs);
    },

    async revoke(token, meta) {
      let sessionId: string;
      if (token.startsWith(REFRESH_TOKEN_PREFIX)) {
        const parsed = parseOpaqueToken(token, REFRESH_TOKEN_PREFIX);
        const stored = parsed ? await sessions.findRefreshToken(parsed.id) : null;
        if (!parsed || !stored || !secretMatches(parsed.secret, stored.secretHash)) throw unauthenticated('invalid token');
        sessionId = stored.sessionId;
      } else {
        sessionId = (await readAccessToken(token)).sessionId;
      }
      const session = await sessions.get(sessionId);
      const at = isoAt(now());
      if (session?.channel === 'portal') throw unauthenticated('invalid token');
      if (!sessionIsLive(session, at)) throw unauthenticated('session has already ended');
      await sessions.revoke(session.id, at, 'revoked');
      await audit.record({
        tenantId: session.tenantId,
        type: 'auth.revoke',
        actor: { userId: session.userId },
        ...meta,
        target: { type: 'session', id: session.id },
        details: { via: token.startsWith(REFRESH_TOKEN_PREFIX) ? 'refresh_token' : 'access_token' },
      });
    },

    async authenticateAccessToken(token) {
      const claims = await readAccessToken(token);
      const session = await sessions.get(claims.sessionId);
      if (!sessionIsLive(session, isoAt(now())) || session.userId !== claims.userId || session.channel !== 'api')
        throw unauthenticated('session has ended');
      return claims;
    },

    async accessOf(tenantId, userId) {
      const membership = await tenants.membership(tenantId, userId);
      if (!membership) return null;
      const base = roleByName(membership.role);
      const tenant = await tenants.get(tenantId);
      if (!base || !tenant) return null;
      const permissions = new Set<Permission>(base.permissions);
      const grant = await deps.breakGlass.activeGrant(membership);
      if (grant) for (const p of breakGlassPermissions) permissions.add(p);
      return { role: membership.role as RoleName, permissions, breakGlass: grant !== null, tenantStatus: tenant.status };
    },

    async stepUp(principal, input, meta) {
      if (!(stepUpActions as readonly string[]).includes(input.action)) {
        const message = `must be one of ${stepUpActions.join(', ')}`;
        throw new AppError('VALIDATION_FAILED', `action: ${message}`, { fields: [{ field: 'action', message }] });
      }
      const action = input.action as StepUpAction;
      const user = await users.findById(principal.userId);
      const session = await sessions.get(principal.sessionId);
      const nowMs = now();
      if (!user || !sessionIsLive(session, isoAt(nowMs))) throw unauthenticated('session has ended');
      const fail = async (reason: string, error: AppError) => {
        await audit.record({
          tenantId: principal.tenantId,
          type: 'auth.step_up_failed',
          actor: { userId: principal.userId },
          ...meta,
          details: { action, reason },
        });
        return error;
      };
      if (user.passwordHash) {
        if (!input.password) {
          throw new AppError('VALIDATION_FAILED', 'password: required to step up', {
            fields: [{ field: 'password', message: 'required to step up' }],
          });
        }
        const throttleKey = `step-up:${user.id}`;
        const ip = meta.ip ?? 'unknown';
        const attempt = await throttle.reserve(throttleKey, ip);
        if (!(await passwords.verify(user.passwordHash, input.password))) {
          throw await fail('wrong_password', unauthenticated('password is incorrect'));
        }
        await attempt.succeeded();
      } else if (Date.parse(session.authenticatedAt) < nowMs - RECENT_SIGN_IN_MS) {
        throw await fail('sign_in_not_recent', unauthenticated('sign in again (within the last 5 minutes) to step up'));
      }
      const token = newOpaqueToken(STEP_UP_TOKEN_PREFIX);
      await stepUpTokens.deleteExpired(isoAt(nowMs)); // housekeeping: step-ups are rare, the delete is indexed
      await stepUpTokens.create({
        id: token.id,
        secretHash: token.secretHash,
        userId: principal.userId,
        tenantId: principal.tenantId,
        sessionId: principal.sessionId,
        action,
        createdAt: isoAt(nowMs),
        expiresAt: isoAt(nowMs + config.STEP_UP_TTL_SECONDS * 1000),
      });
      await audit.record({
        tenantId: principal.tenantId,
        type: 'auth.step_up',
        actor: { userId: principal.userId },
        ...meta,
        target: { type: 'step_up', id: token.id },
        details: { action, method: user.passwordHash ? 'password' : 'recent_sign_in', expires_in: config.STEP_UP_TTL_SECONDS },
      });
      return { stepUpToken: token.token, expiresIn: config.STEP_UP_TTL_SECONDS, action };
    },

    async verifyStepUp(token, expected) {
      if (!token) throw stepUpRequired();
      const parsed = parseOpaqueToken(token.trim(), STEP_UP_TOKEN_PREFIX);
      if (!parsed) throw stepUpRequired('step-up token is malformed');
      const stored = await stepUpTokens.find(expected.tenantId, parsed.id);
      if (!stored || !secretMatches(parsed.secret, stored.secretHash)) throw stepUpRequired('step-up token is not valid');
      const at = isoAt(now());
      if (stored.expiresAt <= at) throw stepUpRequired('step-up token has expired');
      if (stored.userId !== expected.userId) throw stepUpRequired('step-up token belongs to another user');
      if (stored.action !== expected.action) throw stepUpRequired(`step-up token is for '${stored.action}', not '${expected.action}'`);
      // The portal binds a token to the browser session that earned it, not only to its user.
      if (expected.sessionId !== undefined && stored.sessionId !== expected.sessionId)
        throw stepUpRequired('step-up token belongs to another session');
      if (!sessionIsLive(await sessions.get(stored.sessionId), at)) throw stepUpRequired('the session of this step-up token has ended');
    },
  };
  return service;
}
