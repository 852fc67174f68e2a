import { apiKeyProcedure, requirePermission } from '../server/procedures.js';
import { roleHas, type RoleName } from '../server/services/roles.js';
import { router } from '../server/trpc.js';
import {
  apiKeyIdInput,
  checkScopeInput,
  checkScopeOutput,
  createApiKeyInput,
  createApiKeyOutput,
  currentApiKeyOutput,
  listApiKeysOutput,
  revokeApiKeyOutput,
  rotateApiKeyOutput,
} from './apiKeys/schemas.js';
import {
  fromCreateApiKeyBody,
  toApiKeySummary,
  toCreatedApiKey,
  toCurrentApiKey,
  toRevokedApiKey,
  toRotatedApiKey,
} from './apiKeys/wire.js';

const tags = ['API keys'];

interface ActorContext {
  principal: { tenantId: string; userId: string; role: RoleName };
  ip: string;
  userAgent: string | null;
  requestId: string;
}
/** The key service's actor for a management call (also the portal's credentials routes). */
export const keyManagerOf = (ctx: ActorContext) => ({
  tenantId: ctx.principal.tenantId,
  userId: ctx.principal.userId,
  // The caller's own role, never a grant: it bounds the scopes of keys they create or rotate.
  role: ctx.principal.role,
  // By the caller's own role: a break-glass grant never lends it (server/services/roles.ts `baseRoleOnly`).
  manageAll: roleHas(ctx.principal.role, 'api_keys:manage_all'),
  ip: ctx.ip,
  userAgent: ctx.userAgent,
  requestId: ctx.requestId,
});

/**
 * `/api-keys`: management by bearer token (permissions `api_keys:read` / `api_keys:manage`, one's own
 * keys, or `api_keys:manage_all`, every key of the tenant; both by the caller's own role, never a
 * break-glass grant, and a key's scopes within that role), and two probes authenticated by the key
 * itself. Static paths come before `/api-keys/{id}`.
 */
export const apiKeysRouter = router({
  current: apiKeyProcedure
    .meta({
      openapi: { method: 'GET', path: '/api-keys/current', tags, summary: 'The API key making this request', protect: true },
      auth: 'apiKey',
    })
    .output(currentApiKeyOutput)
    .query(async ({ ctx }) => toCurrentApiKey(await ctx.services.apiKeys.describe(ctx.principal))),

  checkScope: apiKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api-keys/current/check',
        tags,
        summary: 'Whether the calling key holds a scope (403 SCOPE_MISSING otherwise)',
        protect: true,
      },
      auth: 'apiKey',
    })
    .input(checkScopeInput)
    .output(checkScopeOutput)
    .query(({ ctx, input }) => {
      ctx.services.apiKeys.checkScope(ctx.principal, input.scope);
      return { key_id: ctx.principal.keyId, scope: input.scope, granted: true as const };
    }),

  list: requirePermission('api_keys:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api-keys',
        tags,
        summary: "The current tenant's API keys (secrets are never shown)",
        protect: true,
      },
      auth: 'bearer',
    })
    .output(listApiKeysOutput)
    .query(async ({ ctx }) => ({ keys: (await ctx.services.apiKeys.list(ctx.principal.tenantId)).map(toApiKeySummary) })),

  create: requirePermission('api_keys:manage')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api-keys',
        tags,
        summary: 'Create an API key; the secret is returned only in this response',
        protect: true,
        successDescription: 'Created',
      },
      auth: 'bearer',
    })
    .input(createApiKeyInput)
    .output(createApiKeyOutput)
    .mutation(async ({ ctx, input }) => {
      const { key, secret } = await ctx.services.apiKeys.create(keyManagerOf(ctx), fromCreateApiKeyBody(input));
      ctx.response.status = 201;
      return toCreatedApiKey(key, secret);
    }),

  rotate: requirePermission('api_keys:manage')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api-keys/{id}/rotate',
        tags,
        summary:
          'Replace the secret; the old one stops working at once (409 if revoked; 403 for a key another user created, unless owner or admin)',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(apiKeyIdInput)
    .output(rotateApiKeyOutput)
    .mutation(async ({ ctx, input }) => {
      const { key, secret } = await ctx.services.apiKeys.rotate(keyManagerOf(ctx), input.id);
      return toRotatedApiKey(key, secret);
    }),

  revoke: requirePermission('api_keys:manage')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api-keys/{id}',
        tags,
        summary:
          'Revoke a key; it answers 401 from then on. Idempotent: revoking again answers 200 (403 for a key another user created, unless owner or admin)',
        protect: true,
      },
      auth: 'bearer',
    })
    .input(apiKeyIdInput)
    .output(revokeApiKeyOutput)
    .mutation(async ({ ctx, input }) => {
      const { key } = await ctx.services.apiKeys.revoke(keyManagerOf(ctx), input.id);
      return toRevokedApiKey(key);
    }),
});
