import { z } from 'zod';
import { apiKeyScopes } from '../../server/principal.js';
import { timestamp } from '../../server/schemas/common.js';
import { apiKeyScopeSchema, createApiKeyInput } from '../apiKeys/schemas.js';

/**
 * One schema per shape of the portal's credentials routes: the `/api-keys` shapes under the names the
 * portal spec gives (`id`, `namespaces`). Unknown fields are refused (400), as on POST /api-keys.
 */

export const portalCredentialInput = z.strictObject({
  name: createApiKeyInput.shape.name,
  scopes: createApiKeyInput.shape.scopes,
  namespaces: createApiKeyInput.shape.namespace_restrictions,
  ip_allowlist: createApiKeyInput.shape.ip_allowlist,
});

export const portalCredential = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string().meta({ description: 'Leading characters of the current secret, to tell keys apart', example: 'tmk_k3x9b2qa' }),
  scopes: z.array(apiKeyScopeSchema),
  namespaces: z.array(z.string()).nullable().meta({ description: 'Namespaces the key may use; null: every namespace' }),
  ip_allowlist: z.array(z.string()).nullable().meta({ description: 'Client addresses or CIDR ranges; null: any address' }),
  created_at: timestamp,
  created_by: z.string().nullable().meta({ description: 'The user who created the key (null for a key the system issued)' }),
  last_used_at: timestamp.nullable().meta({ description: 'Last use, to within a minute; null when never used' }),
  expires_at: timestamp.nullable().meta({ description: 'Keys do not expire: always null (revoke a key to end it)' }),
  rotated_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
  status: z.enum(['active', 'revoked']),
});

export const portalCredentialList = z.object({ credentials: z.array(portalCredential) });

export const portalCreatedCredential = portalCredential.extend({
  secret: z.string().meta({ description: 'The one-time secret (tmk_…); it is never shown again' }),
});

export const portalRotatedCredential = portalCredential.extend({
  secret: z.string().meta({ description: 'The new one-time secret; the previous one no longer works' }),
});

export const portalScopeList = z.object({
  scopes: z.array(
    z.object({
      scope: z.enum(apiKeyScopes),
      description: z.string(),
      grantable: z
        .boolean()
        .meta({ description: "Whether the caller's own role may grant it (a key's scopes stay within its creator's role)" }),
    }),
  ),
});
