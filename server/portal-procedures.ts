import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { RequestContext } from './context.js';
import { AppError, forbidden, unauthenticated } from './errors.js';
import type { UserPrincipal } from './principal.js';
import { stepUpTokenOf } from './procedures.js';
import type { StepUpAction } from './services/auth.js';
import type { PortalSession } from './services/portal/portal-sessions.js';
import type { Permission } from './services/roles.js';
import { assertTenantActive } from './services/tenants.js';
import { appErrorsMapped, bareProcedure, type RouteMeta } from './trpc.js';

/*
 * The web portal's credential: a session cookie, and nothing else. These builders never read
 * `Authorization` or `X-API-Key`, and the bearer and API-key builders never read cookies, so neither
 * door opens the other. Every portal call is refused from another site (Origin, Sec-Fetch-Site); a
 * state-changing one also needs the session's CSRF token in `X-CSRF-Token` (403 CSRF_FAILED).
 */

const PLAIN_COOKIE = 'tm_portal';
/** Over HTTPS: `__Host-` makes the browser refuse it unless Secure, host-only and Path=/. */
const HOST_COOKIE = '__Host-tm_portal';

type CookieContext = Pick<RequestContext, 'origin' | 'header' | 'services'>;

/**
 * HTTPS as the browser sees it: the request came over HTTPS (directly, or per a trusted proxy), or the
 * deployment says it is served over HTTPS (`PUBLIC_URL`), e.g. behind a proxy that is not configured
 * as trusted. Either way the cookie is `__Host-` and Secure.
 */
const overHttps = (ctx: CookieContext) =>
  ctx.origin()?.startsWith('https:') === true || ctx.services.config.PUBLIC_URL?.startsWith('https:') === true;

/** The Set-Cookie value that signs a browser in: HttpOnly, SameSite=Lax, Path=/; `__Host-` and Secure over HTTPS. */
export function portalSessionCookie(ctx: CookieContext, token: string, maxAgeSeconds: number): string {
  const secure = overHttps(ctx);
  return serializeCookie(secure ? HOST_COOKIE : PLAIN_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: maxAgeSeconds,
  });
}

/** The Set-Cookie value that removes the session cookie (sign-out, or a cookie that no longer works). */
export function clearedPortalCookie(ctx: CookieContext): string {
  const secure = overHttps(ctx);
  return serializeCookie(secure ? HOST_COOKIE : PLAIN_COOKIE, '', {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: 0,
    expires: new Date(0),
  });
}

/** The session cookie's value, or null. Over HTTPS only the `__Host-` cookie counts (a plain one could be planted). */
export function portalCookieOf(ctx: CookieContext): string | null {
  const header = ctx.header('cookie');
  if (!header) return null;
  const cookies = parseCookies(header);
  return (overHttps(ctx) ? cookies[HOST_COOKIE] : cookies[PLAIN_COOKIE]) ?? null;
}

const SSO_COOKIE = 'tm_portal_sso';
/** Over HTTPS: `__Host-` (Secure, host-only, Path=/), so a sibling host cannot plant or overwrite it. */
const HOST_SSO_COOKIE = '__Host-tm_portal_sso';
/** Over plain HTTP the binding cookie only goes to the SSO routes. */
const SSO_COOKIE_PATH = '/api/portal/sso';

const ssoCookieAttributes = (secure: boolean) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  secure,
  path: secure ? '/' : SSO_COOKIE_PATH,
});

/**
 * Binds a portal SSO sign-in to the browser that started it: the callback completes only when the
 * browser brings back the state it was given (otherwise another site could send a victim's browser to
 * the callback with the attacker's code and sign the victim in as the attacker). Lax, so the provider's
 * top-level redirect carries it; 10 minutes, like the state itself.
 */
export function ssoBindingCookie(ctx: CookieContext, state: string): string {
  const secure = overHttps(ctx);
  return serializeCookie(secure ? HOST_SSO_COOKIE : SSO_COOKIE, state, { ...ssoCookieAttributes(secure), maxAge: 600 });
}

/** Removes the binding cookie once the callback used it: a state works once. */
export function clearedSsoBindingCookie(ctx: CookieContext): string {
  const secure = overHttps(ctx);
  return serializeCookie(secure ? HOST_SSO_COOKIE : SSO_COOKIE, '', { ...ssoCookieAttributes(secure), maxAge: 0, expires: new Date(0) });
}

/** The SSO binding cookie's value, or null. */
export function ssoBindingOf(ctx: CookieContext): string | null {
  const header = ctx.header('cookie');
  if (!header) return null;
  return parseCookies(header)[overHttps(ctx) ? HOST_SSO_COOKIE : SSO_COOKIE] ?? null;
}

/**
 * Refuses a request another site made the browser send: `Sec-Fetch-Site` other than same-origin or
 * none (a typed address), or an `Origin` that is not this server's (as addressed, or PUBLIC_URL).
 * Clients that send neither header (curl, SDKs) are not browsers and carry no ambient cookie of a victim.
 */
export function assertSameOrigin(ctx: Pick<RequestContext, 'origin' | 'header' | 'services'>): void {
  const site = ctx.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new AppError('CSRF_FAILED', `cross-site request refused (Sec-Fetch-Site: ${site.slice(0, 32)})`);
  }
  const origin = ctx.header('origin');
  if (origin === undefined) return;
  const publicUrl = ctx.services.config.PUBLIC_URL;
  const own = [ctx.origin(), publicUrl === undefined ? null : new URL(publicUrl).origin];
  if (!own.includes(origin)) throw new AppError('CSRF_FAILED', 'request from another origin refused');
}

interface PortalRequirement {
  /** Refuse a suspended tenant (403 TENANT_SUSPENDED); off for the user's own routes (session, tenants). */
  tenantMustBeActive: boolean;
  permission?: Permission;
  stepUp?: StepUpAction;
}

export interface PortalContext {
  principal: UserPrincipal;
  portalSession: PortalSession;
}

/**
 * Cookie → live portal session → CSRF (state-changing calls) → `X-User-ID` (must be the session's
 * user). What every portal route checks, before any tenant is involved.
 */
async function portalSessionOf(ctx: RequestContext, changesState: boolean): Promise<PortalSession> {
  assertSameOrigin(ctx);
  const cookie = portalCookieOf(ctx);
  if (!cookie) throw unauthenticated('sign in to the portal first (no portal session cookie)');
  const session = await ctx.services.portal.sessions.authenticate(cookie);
  if (changesState) ctx.services.portal.sessions.verifyCsrf(session.sessionId, ctx.header('x-csrf-token'));
  const claimedUser = ctx.header('x-user-id');
  if (claimedUser !== undefined && claimedUser !== session.userId) throw forbidden('X-User-ID is not the signed-in user');
  return session;
}

/**
 * The portal session, then the tenant (`X-Tenant-ID`, else the session's) and the user's role there →
 * permission → step-up token bound to this user, tenant, session and action. Exported for the one
 * portal route served outside tRPC (the streamed export), so it passes the same doors.
 */
export async function authenticatePortalRequest(
  ctx: RequestContext,
  changesState: boolean,
  required: PortalRequirement,
): Promise<PortalContext> {
  const session = await portalSessionOf(ctx, changesState);
  const tenantId = ctx.header('x-tenant-id') ?? session.tenantId;
  const access = await ctx.services.bearerAuth.accessOf(tenantId, session.userId);
  if (!access) throw forbidden('not a member of this tenant');
  if (required.tenantMustBeActive) assertTenantActive({ status: access.tenantStatus });
  const principal: UserPrincipal = {
    kind: 'user',
    userId: session.userId,
    sessionId: session.sessionId,
    tenantId,
    role: access.role,
    permissions: access.permissions,
    breakGlass: access.breakGlass,
  };
  if (required.permission !== undefined && !principal.permissions.has(required.permission)) {
    throw new AppError('FORBIDDEN', `role '${principal.role}' lacks permission '${required.permission}'`);
  }
  if (required.stepUp !== undefined) {
    await ctx.services.auth.verifyStepUp(stepUpTokenOf(ctx), {
      userId: session.userId,
      tenantId,
      action: required.stepUp,
      sessionId: session.sessionId,
    });
  }
  return { principal, portalSession: session };
}

/**
 * State-changing: a tRPC mutation, or any REST method but GET. Both are asked so a procedure declared
 * as a query on a POST path (or the reverse) still needs the CSRF token; the portal matrix also checks
 * that every portal mutation is a non-GET route and the reverse.
 */
const changesStateOf = (type: string, meta: RouteMeta | undefined) => type === 'mutation' || (meta?.openapi?.method ?? 'GET') !== 'GET';

function portalAuthenticated(required: PortalRequirement) {
  const meta = {
    auth: 'portal' as const,
    ...(required.permission === undefined ? {} : { permission: required.permission }),
    ...(required.stepUp === undefined ? {} : { stepUp: required.stepUp }),
  };
  return bareProcedure.meta(meta).use(({ ctx, type, meta: routeMeta, next }) =>
    appErrorsMapped(async () => {
      const added = await authenticatePortalRequest(ctx, changesStateOf(type, routeMeta), required);
      ctx.response.headers['Cache-Control'] = 'no-store';
      return next({ ctx: added });
    }),
  );
}

/**
 * Portal routes about the signed-in user (session, sign-out, their tenants). They need no membership
 * of any tenant — a user removed from the tenant they signed in to can still read their session and
 * sign out — but an `X-Tenant-ID`, when sent, must still be one of theirs (403).
 */
export const portalUserProcedure = bareProcedure.meta({ auth: 'portal' as const }).use(({ ctx, type, meta: routeMeta, next }) =>
  appErrorsMapped(async () => {
    const portalSession = await portalSessionOf(ctx, changesStateOf(type, routeMeta));
    const tenantId = ctx.header('x-tenant-id');
    if (tenantId !== undefined && !(await ctx.services.bearerAuth.accessOf(tenantId, portalSession.userId))) {
      throw forbidden('not a member of this tenant');
    }
    ctx.response.headers['Cache-Control'] = 'no-store';
    return next({ ctx: { portalSession } });
  }),
);

/** Portal routes acting on the current tenant, open to every role. */
export const portalProcedure = portalAuthenticated({ tenantMustBeActive: true });

/** A portal route that needs one permission of the user's role in the current tenant (recorded as `meta.permission`). */
export function requirePortalPermission(permission: Permission) {
  return portalAuthenticated({ tenantMustBeActive: true, permission });
}

/** A privileged portal action: the permission and an `X-Step-Up-Token` earned for `action` in this session. */
export function requirePortalStepUp(permission: Permission, action: StepUpAction) {
  return portalAuthenticated({ tenantMustBeActive: true, permission, stepUp: action });
}

/** Portal routes before a session exists (sign-in): still refused from another site, against login CSRF. */
export const portalSignInProcedure = bareProcedure.meta({ auth: 'none' }).use(({ ctx, next }) =>
  appErrorsMapped(() => {
    assertSameOrigin(ctx);
    ctx.response.headers['Cache-Control'] = 'no-store';
    return next();
  }),
);
