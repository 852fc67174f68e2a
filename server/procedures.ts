import type { RequestContext } from './context.js';
import { AppError, forbidden, unauthenticated } from './errors.js';
import type { ApiKeyScope, UserPrincipal, ApiKeyPrincipal } from './principal.js';
import type { StepUpAction } from './services/auth.js';
import type { Permission } from './services/roles.js';
import { assertTenantActive } from './services/tenants.js';
import { appErrorsMapped, bareProcedure } from './trpc.js';

/*
 * One middleware per credential kind: it authenticates, checks what the route requires (permission,
 * step-up, scope) and maps errors, and passes on only what it adds (`next({ ctx: { principal } })`,
 * tRPC merges the rest). Each middleware step costs tRPC a copy of the call's options and context.
 */

/** Routes anyone may call (sign-up, login, health probes of tRPC). */
export const publicProcedure = bareProcedure.use(({ next }) => appErrorsMapped(() => next()));

/** The token of an `Authorization: Bearer <token>` header, or null: the one place that parses it. */
export function bearerTokenOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}

interface BearerRequirement {
  /** Refuse a suspended tenant (403 TENANT_SUSPENDED), after membership, so only members learn the status. */
  tenantMustBeActive: boolean;
  permission?: Permission;
  stepUp?: StepUpAction;
}

/**
 * Bearer JWT authentication. The tenant is the token's, or `X-Tenant-ID` naming another tenant the
 * user belongs to; a tenant the user is not in answers 403 (it is the user's own claim, not a lookup).
 * Then the permission (403 FORBIDDEN), then the step-up token (403 STEP_UP_REQUIRED): a caller without
 * the permission is told that, not asked to re-authenticate.
 */
async function bearerPrincipal(ctx: RequestContext, required: BearerRequirement): Promise<UserPrincipal> {
  const token = bearerTokenOf(ctx.header('authorization'));
  if (!token) throw unauthenticated('missing bearer token');
  const session = await ctx.services.bearerAuth.authenticateAccessToken(token);
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
    await ctx.services.auth.verifyStepUp(stepUpTokenOf(ctx), { ...principal, action: required.stepUp });
  }
  return principal;
}

function bearerAuthenticated(required: BearerRequirement) {
  // Merged with the route's own meta (tRPC merges meta shallowly), so the requirement is introspectable.
  const builder = required.permission === undefined ? bareProcedure : bareProcedure.meta({ permission: required.permission });
  return builder.use(({ ctx, next }) =>
    appErrorsMapped(async () => {
      const principal = await bearerPrincipal(ctx, required);
      return next({ ctx: { principal } });
    }),
  );
}

/** Bearer routes that act on the current tenant: refused while it is suspended. */
export const bearerProcedure = bearerAuthenticated({ tenantMustBeActive: true });

/**
 * Bearer routes about the signed-in user rather than the current tenant (list their tenants, their
 * primary tenant, create a tenant, their invitations): they keep working while the current tenant is suspended, so its
 * members can move to another tenant. Signing out (`/auth/revoke`) needs no tenant at all.
 */
export const userProcedure = bearerAuthenticated({ tenantMustBeActive: false });

/** A bearer route that also needs one permission of the caller's role in the tenant (recorded as `meta.permission`). */
export function requirePermission(permission: Permission) {
  return bearerAuthenticated({ tenantMustBeActive: true, permission });
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
 * STEP_UP_REQUIRED otherwise). Services that need step-up only for some inputs (member changes)
 * take `stepUpTokenOf(ctx)` and call `verifyStepUp` themselves.
 */
export function requireStepUp(permission: Permission, action: StepUpAction) {
  return bearerAuthenticated({ tenantMustBeActive: true, permission, stepUp: action });
}

async function apiKeyPrincipal(ctx: RequestContext, scope: ApiKeyScope | undefined): Promise<ApiKeyPrincipal> {
  const secret = ctx.header('x-api-key');
  if (!secret) throw unauthenticated('missing X-API-Key header');
  const principal = await ctx.services.apiKeyAuth.authenticate(secret.trim(), ctx.ip);
  if (scope !== undefined && !principal.scopes.has(scope)) {
    throw new AppError('SCOPE_MISSING', `API key lacks scope '${scope}'`);
  }
  return principal;
}

function apiKeyAuthenticated(scope: ApiKeyScope | undefined) {
  const builder = scope === undefined ? bareProcedure : bareProcedure.meta({ scope });
  return builder.use(({ ctx, next }) =>
    appErrorsMapped(async () => {
      const principal = await apiKeyPrincipal(ctx, scope);
      return next({ ctx: { principal } });
    }),
  );
}

/** `X-API-Key` routes (memory and knowledge). */
export const apiKeyProcedure = apiKeyAuthenticated(undefined);

/** An API-key route that needs a scope (recorded as `meta.scope`). */
export function requireScope(scope: ApiKeyScope) {
  return apiKeyAuthenticated(scope);
}

/**
 * A route for API keys with `scope` and for signed-in users whose role in the tenant has the permission
 * of the same name (every scope is one; see `api-key-scopes.ts`), e.g. knowledge structures, which
 * owners and admins also manage with their own session. A sent `X-API-Key` decides, so a key client is judged
 * exactly as on a key-only route; otherwise the bearer token is judged as on `requirePermission`.
 * Records `auth: 'apiKeyOrBearer'`, the scope and the permission in the meta (OpenAPI, permission matrix).
 */
export function requireScopeOrPermission(scope: ApiKeyScope) {
  const permission: Permission = scope;
  return bareProcedure.meta({ auth: 'apiKeyOrBearer', scope, permission }).use(({ ctx, next }) =>
    appErrorsMapped(async () => {
      const principal = await keyOrUserPrincipal(ctx, scope, permission);
      return next({ ctx: { principal } });
    }),
  );
}

async function keyOrUserPrincipal(
  ctx: RequestContext,
  scope: ApiKeyScope,
  permission: Permission,
): Promise<ApiKeyPrincipal | UserPrincipal> {
  if (ctx.header('x-api-key') !== undefined) return apiKeyPrincipal(ctx, scope);
  if (bearerTokenOf(ctx.header('authorization')) !== null) return bearerPrincipal(ctx, { tenantMustBeActive: true, permission });
  throw unauthenticated('missing X-API-Key header or bearer token');
}
