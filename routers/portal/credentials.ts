import { portalProcedure, requirePortalPermission } from '../../server/portal-procedures.js';
import { apiKeyScopeDescriptions, apiKeyScopes } from '../../server/api-key-scopes.js';
import { emptyInput } from '../../server/schemas/common.js';
import { roleHas } from '../../server/services/roles.js';
import { router } from '../../server/trpc.js';
import { keyManagerOf } from '../apiKeys.js';
import { apiKeyIdInput } from '../apiKeys/schemas.js';
import {
  portalCreatedCredential,
  portalCredential,
  portalCredentialInput,
  portalCredentialList,
  portalRotatedCredential,
  portalScopeList,
} from './credentials-schemas.js';
import { fromPortalCredentialBody, toPortalCredential } from './credentials-wire.js';

const tags = ['Portal'];

/**
 * `/api/portal/credentials`: the tenant's API keys from the portal, through the same service and
 * permissions as `/api-keys` (`api_keys:read` to list; `api_keys:manage` for one's own keys, or
 * `api_keys:manage_all` by one's own role for every key; scopes within the creator's role). The portal
 * user is the audited actor. Secrets appear once, in the create and rotate answers.
 */
export const portalCredentialsRouter = router({
  listCredentials: requirePortalPermission('api_keys:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/credentials',
        tags,
        summary: "The tenant's API keys (secrets are never shown)",
        protect: true,
      },
    })
    .input(emptyInput)
    .output(portalCredentialList)
    .query(async ({ ctx }) => ({ credentials: (await ctx.services.apiKeys.list(ctx.principal.tenantId)).map(toPortalCredential) })),

  createCredential: requirePortalPermission('api_keys:manage')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/credentials',
        tags,
        summary: 'Create an API key with scoped access; the secret is returned only in this response',
        protect: true,
        successDescription: 'Created',
      },
    })
    .input(portalCredentialInput)
    .output(portalCreatedCredential)
    .mutation(async ({ ctx, input }) => {
      const { key, secret } = await ctx.services.apiKeys.create(keyManagerOf(ctx), fromPortalCredentialBody(input));
      ctx.response.status = 201;
      return { ...toPortalCredential(key), secret };
    }),

  rotateCredential: requirePortalPermission('api_keys:manage')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/portal/credentials/{id}/rotate',
        tags,
        summary: 'Replace the secret (returned once); the old one stops working at once (409 if revoked)',
        protect: true,
      },
    })
    .input(apiKeyIdInput)
    .output(portalRotatedCredential)
    .mutation(async ({ ctx, input }) => {
      const { key, secret } = await ctx.services.apiKeys.rotate(keyManagerOf(ctx), input.id);
      return { ...toPortalCredential(key), secret };
    }),

  revokeCredential: requirePortalPermission('api_keys:manage')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/portal/credentials/{id}',
        tags,
        summary: 'Revoke an API key; it answers 401 from then on (idempotent)',
        protect: true,
      },
    })
    .input(apiKeyIdInput)
    .output(portalCredential)
    .mutation(async ({ ctx, input }) => toPortalCredential((await ctx.services.apiKeys.revoke(keyManagerOf(ctx), input.id)).key)),

  scopes: portalProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/portal/scopes',
        tags,
        summary: 'The API key scopes, what each allows and whether your role may grant it (for the scope picker)',
        protect: true,
      },
    })
    .input(emptyInput)
    .output(portalScopeList)
    .query(({ ctx }) => ({
      scopes: apiKeyScopes.map((scope) => ({
        scope,
        description: apiKeyScopeDescriptions[scope],
        grantable: roleHas(ctx.principal.role, scope),
      })),
    })),
});
