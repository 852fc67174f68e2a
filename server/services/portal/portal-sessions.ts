import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.js';
import { AppError, unauthenticated } from '../../errors.js';
import type { SessionRecord, SessionStore } from '../../ports/sessions.js';
import type { AuditService, RequestMeta } from '../audit.js';
import { isoAt, systemClock, type Clock } from '../clock.js';
import { newOpaqueToken, parseOpaqueToken, secretMatches } from '../opaque-tokens.js';

/** The portal cookie's value: an opaque token of this prefix (never a refresh token's `tmr_`). */
export const PORTAL_TOKEN_PREFIX = 'tmc_';

/** A live portal sign-in, as the portal's procedures see it. */
export interface PortalSession {
  sessionId: string;
  userId: string;
  /** The tenant signed in to: the default when a request names none in `X-Tenant-ID`. */
  tenantId: string;
  method: 'password' | 'sso';
  authenticatedAt: string;
  expiresAt: string;
}

export interface StartedPortalSession {
  /** The cookie's value, returned exactly once (only its hash is stored). */
  token: string;
  session: PortalSession;
  csrfToken: string;
  /** Seconds the cookie lives (its Max-Age). */
  maxAgeSeconds: number;
}

export interface PortalSessionService {
  /**
   * Starts a portal session for an authenticated user (password or SSO); records `auth.login` with
   * `channel: portal`. `replacing`: the cookie the browser still held, whose session ends now (one
   * browser, one live session: signing in again does not leave the old one working until it expires).
   */
  start(
    userId: string,
    tenantId: string,
    origin: RequestMeta & { method: 'password' | 'sso' },
    replacing?: string | null,
  ): Promise<StartedPortalSession>;
  /** The live session of a cookie value; 401 when it is malformed, unknown, expired, revoked or not a portal session. */
  authenticate(token: string): Promise<PortalSession>;
  /** Ends the session (sign-out); records `auth.revoke`, in the tenant the request acted in. */
  end(session: PortalSession, tenantId: string, meta: RequestMeta): Promise<void>;
  /** The session's CSRF token: the same on every call for one session, worthless for any other. */
  csrfTokenOf(sessionId: string): string;
  /** Throws 403 CSRF_FAILED unless `presented` is the session's CSRF token (constant-time). */
  verifyCsrf(sessionId: string, presented: string | undefined): void;
}

export interface PortalSessionDeps {
  config: Pick<Config, 'jwtSecret' | 'PORTAL_SESSION_TTL_SECONDS'>;
  sessions: Pick<SessionStore, 'create' | 'get' | 'findRefreshToken' | 'revoke'>;
  audit: Pick<AuditService, 'record'>;
  clock?: Clock;
}

/**
 * The web portal's sessions: rows of the same session store as bearer sessions (so a password change
 * or a purge ends them alike), on the `portal` channel. The cookie carries `tmc_<id>.<secret>`, of
 * which only SHA-256(secret) is stored, and it does not slide: the browser signs in again after
 * PORTAL_SESSION_TTL_SECONDS.
 *
 * CSRF: the synchronizer token is derived, not stored: HMAC-SHA256 of the session id under a key
 * derived from the server's secret. It is bound to one session, ends with it, and can be handed out
 * again on `GET /api/portal/session` without keeping a second secret (OWASP's HMAC token pattern).
 */
export function createPortalSessionService(deps: PortalSessionDeps): PortalSessionService {
  const { config, sessions, audit } = deps;
  const now = deps.clock ?? systemClock;
  const csrfKey = createHmac('sha256', config.jwtSecret).update('tenant-memory portal csrf v1').digest();
  const csrfOf = (sessionId: string) => createHmac('sha256', csrfKey).update(sessionId).digest('base64url');

  const toPortalSession = (s: SessionRecord): PortalSession => ({
    sessionId: s.id,
    userId: s.userId,
    tenantId: s.tenantId,
    method: s.method,
    authenticatedAt: s.authenticatedAt,
    expiresAt: s.expiresAt,
  });

  const liveSessionOf = async (token: string): Promise<SessionRecord> => {
    const parsed = parseOpaqueToken(token, PORTAL_TOKEN_PREFIX);
    if (!parsed) throw unauthenticated('invalid portal session');
    const stored = await sessions.findRefreshToken(parsed.id);
    if (!stored || !secretMatches(parsed.secret, stored.secretHash)) throw unauthenticated('invalid portal session');
    const session = await sessions.get(stored.sessionId);
    // A bearer session's refresh token has the same form: it never opens the portal.
    if (!session || session.channel !== 'portal') throw unauthenticated('invalid portal session');
    if (session.revokedAt !== null || session.expiresAt <= isoAt(now())) throw unauthenticated('portal session has ended; sign in again');
    return session;
  };

  /** Ends the session of a cookie the browser replaces; a cookie that no longer works needs nothing. */
  const endReplaced = async (token: string) => {
    const old = await liveSessionOf(token).catch(() => null);
    if (old) await sessions.revoke(old.id, isoAt(now()), 'replaced_by_sign_in');
  };

  return {
    async start(userId, tenantId, origin, replacing) {
      if (replacing) await endReplaced(replacing);
      const nowMs = now();
      const at = isoAt(nowMs);
      const credential = newOpaqueToken(PORTAL_TOKEN_PREFIX);
      const session: SessionRecord = {
        id: randomUUID(),
        userId,
        tenantId,
        method: origin.method,
        channel: 'portal',
        ip: origin.ip,
        userAgent: origin.userAgent,
        createdAt: at,
        authenticatedAt: at,
        expiresAt: isoAt(nowMs + config.PORTAL_SESSION_TTL_SECONDS * 1000),
        revokedAt: null,
        revokeReason: null,
      };
      await sessions.create(session, {
        id: credential.id,
        sessionId: session.id,
        secretHash: credential.secretHash,
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
        details: { method: origin.method, channel: 'portal' },
      });
      return {
        token: credential.token,
        session: toPortalSession(session),
        csrfToken: csrfOf(session.id),
        maxAgeSeconds: config.PORTAL_SESSION_TTL_SECONDS,
      };
    },

    async authenticate(token) {
      return toPortalSession(await liveSessionOf(token));
    },

    async end(session, tenantId, meta) {
      await sessions.revoke(session.sessionId, isoAt(now()), 'signed_out');
      await audit.record({
        tenantId,
        type: 'auth.revoke',
        actor: { userId: session.userId },
        ...meta,
        target: { type: 'session', id: session.sessionId },
        details: { via: 'portal_sign_out', channel: 'portal' },
      });
    },

    csrfTokenOf: csrfOf,

    verifyCsrf(sessionId, presented) {
      if (!presented) throw new AppError('CSRF_FAILED', 'missing X-CSRF-Token header');
      const expected = Buffer.from(csrfOf(sessionId));
      const given = Buffer.from(presented);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new AppError('CSRF_FAILED', 'X-CSRF-Token does not match this session');
    },
  };
}
