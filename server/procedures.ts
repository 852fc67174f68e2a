import { AppError, forbidden, unauthenticated } from './errors.js';
import type { ApiKeyScope, UserPrincipal, ApiKeyPrincipal } from './principal.js';
import type { Permission } from './services/roles.js';
import { baseProcedure } from './trpc.js';

/** Routes anyone may call (sign-up, login, health probes of tRPC). */
export const publicProcedure = baseProcedure;

function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}

/**
 * Bearer JWT routes. The tenant is the token's, or `X-Tenant-ID` naming another tenant the user
 * belongs to; a tenant the user is not in answers 403 (it is the user's own claim, not a lookup).
 */
export const bearerProcedure = baseProcedure.use(async ({ ctx, next }) => {
  const token = bearerToken(ctx.header('authorization'));
  if (!token) throw unauthenticated('missing bearer token');
  const session = await ctx.services.bearerAuth.authenticateAccessToken(token);
  const tenantId = ctx.header('x-tenant-id') ?? session.tenantId;
  const access = await ctx.services.bearerAuth.accessOf(tenantId, session.userId);
  if (!access) throw forbidden('not a member of this tenant');
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

/** Throws unless the key may use the namespace (keys without restrictions may use any). */
export function assertNamespaceAllowed(principal: ApiKeyPrincipal, namespace: string): void {
  if (principal.namespaces && !principal.namespaces.includes(namespace)) {
    throw new AppError('NAMESPACE_FORBIDDEN', `API key may not use namespace '${namespace}'`);
  }
}
