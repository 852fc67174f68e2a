import { AppError, forbidden, unauthenticated } from './errors.js';
import type { ApiKeyScope, UserPrincipal, ApiKeyPrincipal } from './principal.js';
import type { StepUpAction } from './services/auth.js';
import type { Permission } from './services/roles.js';
import { assertTenantActive } from './services/tenants.js';
import { baseProcedure } from './trpc.js';

/** Routes anyone may call (sign-up, login, health probes of tRPC). */
export const publicProcedure = baseProcedure;

function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}

/**
 * Bearer JWT authentication. The tenant is the token's, or `X-Tenant-ID` naming another tenant the
 * user belongs to; a tenant the user is not in answers 403 (it is the user's own claim, not a lookup).
 * `tenantMustBeActive`: refuse a suspended tenant (403 TENANT_SUSPENDED), after membership, so only
 * members learn the status.
 */
function bearerAuthenticated(tenantMustBeActive: boolean) {
  return baseProcedure.use(async ({ ctx, next }) => {
    const token = bearerToken(ctx.header('authorization'));
    if (!token) throw unauthenticated('missing bearer token');
    const session = await ctx.services.bearerAuth.authenticateAccessToken(token);
    const tenantId = ctx.header('x-tenant-id') ?? session.tenantId;
    const access = await ctx.services.bearerAuth.accessOf(tenantId, session.userId);
    if (!access) throw forbidden('not a member of this tenant');
    if (tenantMustBeActive) assertTenantActive({ status: access.tenantStatus });
    const principal: UserPrincipal = {
      kind: 'user',
      userId: session.userId,
      sessionId: session.sessionId,
      tenantId,
      role: access.role,
      permissions: access.permissions,
      breakGlass: access.breakGlass,
    };
    return next({ ctx: { ...ctx, principal } });
  });
}

/** Bearer routes that act on the current tenant: refused while it is suspended. */
export const bearerProcedure = bearerAuthenticated(true);

/**
 * Bearer routes about the signed-in user rather than the current tenant (list their tenants, their
 * primary tenant, create a tenant, their invitations): they keep working while the current tenant is suspended, so its
 * members can move to another tenant. Signing out (`/auth/revoke`) needs no tenant at all.
 */
export const userProcedure = bearerAuthenticated(false);

/** A bearer route that also needs one permission of the caller's role in the tenant. */
export function requirePermission(permission: Permission) {
  // Merged with the route's own meta (tRPC merges meta shallowly), so the requirement is introspectable.
  return bearerProcedure.meta({ permission }).use(({ ctx, next }) => {
    if (!ctx.principal.permissions.has(permission)) {
      throw new AppError('FORBIDDEN', `role '${ctx.principal.role}' lacks permission '${permission}'`);
    }
    return next();
  });
}

/**
 * The step-up token a request presents in `X-Step-Up-Token`, or null: the one place that reads it.
 * Whether it is valid for an action is `AuthService.verifyStepUp`'s to decide, and only its.
 */
export function stepUpTokenOf(ctx: { header(name: string): string | undefined }): string | null {
  return ctx.header('x-step-up-token') ?? null;
}

/**
 * A bearer route that always needs a permission and a step-up token for one action (403
 * STEP_UP_REQUIRED otherwise): the permission is checked first, so a caller without it is told that,
 * not asked to re-authenticate. Services that need step-up only for some inputs (member changes)
 * take `stepUpTokenOf(ctx)` and call `verifyStepUp` themselves.
 */
export function requireStepUp(permission: Permission, action: StepUpAction) {
  return requirePermission(permission).use(async ({ ctx, next }) => {
    await ctx.services.auth.verifyStepUp(stepUpTokenOf(ctx), { ...ctx.principal, action });
    return next();
  });
}

/** `X-API-Key` routes (memory and knowledge). */
export const apiKeyProcedure = baseProcedure.use(async ({ ctx, next }) => {
  const secret = ctx.header('x-api-key');
  if (!secret) throw unauthenticated('missing X-API-Key header');
  const principal: ApiKeyPrincipal = await ctx.services.apiKeyAuth.authenticate(secret.trim(), ctx.ip);
  return next({ ctx: { ...ctx, principal } });
});

/** An API-key route that needs a scope. */
export function requireScope(scope: ApiKeyScope) {
  return apiKeyProcedure.meta({ scope }).use(({ ctx, next }) => {
    if (!ctx.principal.scopes.has(scope)) {
      throw new AppError('SCOPE_MISSING', `API key lacks scope '${scope}'`);
    }
    return next();
  });
}
