import { z } from 'zod';
import { apiKeyScopes } from '../../server/principal.js';
import { textIdInput, timestamp } from '../../server/schemas/common.js';
import { namespaceSchema } from '../../server/schemas/namespace.js';
import { safeText } from '../../server/schemas/safe-text.js';
import { API_KEY_LIST_MAX, API_KEY_NAME_MAX } from '../../server/services/api-key-fields.js';

/** One schema per shape of the API key routes, shared by tRPC, REST and the OpenAPI document. */

export const apiKeyScopeSchema = z
  .enum(apiKeyScopes, { error: (issue) => `unknown scope '${String(issue.input)}' (allowed: ${apiKeyScopes.join(', ')})` })
  .meta({ description: 'A capability granted to the key' });

export const apiKeyIdInput = textIdInput('The key id (key_id)');

/**
 * Body of POST /api-keys. Unknown fields are rejected (400) rather than ignored, so a misspelt
 * restriction (`ip_allow_list`) can never silently create an unrestricted key.
 */
export const createApiKeyInput = z.strictObject({
  name: safeText().trim().min(1).max(API_KEY_NAME_MAX).meta({ description: 'Human-readable label', example: 'ingest worker' }),
  scopes: z
    .array(apiKeyScopeSchema)
    .min(1)
    .meta({ description: 'Granted scopes', example: ['memories:read', 'memories:write'] }),
  namespace_restrictions: z
    .array(namespaceSchema)
    .min(1)
    .max(API_KEY_LIST_MAX)
    .nullish()
    .meta({ description: 'Namespaces the key may read and write; omit or null for every namespace', example: ['default'] }),
  ip_allowlist: z
    .array(safeText().max(64))
    .min(1)
    .max(API_KEY_LIST_MAX)
    .nullish()
    .meta({
      description:
        'Client addresses or CIDR ranges (IPv4 dotted decimal, IPv6; IPv4-mapped IPv6 counts as IPv4); omit or null for any address',
      example: ['203.0.113.0/24', '2001:db8::/32'],
    }),
});

const restrictions = {
  namespace_restrictions: z.array(z.string()).nullable(),
  ip_allowlist: z.array(z.string()).nullable(),
};

export const apiKeySummary = z.object({
  key_id: z.uuid(),
  name: z.string(),
  scopes: z.array(apiKeyScopeSchema),
  created_at: timestamp,
  last_used_at: timestamp.nullable().meta({ description: 'Last use, to within a minute; null when never used' }),
  status: z.enum(['active', 'revoked']),
  ...restrictions,
  prefix: z.string().meta({ description: 'Leading characters of the current secret, to tell keys apart', example: 'tmk_k3x9b2qa' }),
  rotated_at: timestamp.nullable(),
  revoked_at: timestamp.nullable(),
});

export const listApiKeysOutput = z.object({ keys: z.array(apiKeySummary) });

export const createApiKeyOutput = z.object({
  key_id: z.uuid(),
  secret: z.string().meta({ description: 'The one-time secret (tmk_…); it is never shown again' }),
  tenant_id: z.string(),
  name: z.string(),
  scopes: z.array(apiKeyScopeSchema),
  ...restrictions,
  prefix: z.string(),
  created_at: timestamp,
});

export const rotateApiKeyOutput = z.object({
  key_id: z.uuid(),
  secret: z.string().meta({ description: 'The new one-time secret; the previous one no longer works' }),
  prefix: z.string(),
  rotated_at: timestamp,
});

export const revokeApiKeyOutput = z.object({
  key_id: z.uuid(),
  status: z.literal('revoked'),
  revoked_at: timestamp,
});

export const currentApiKeyOutput = z.object({
  key_id: z.uuid(),
  tenant_id: z.string(),
  name: z.string(),
  scopes: z.array(apiKeyScopeSchema),
  namespace_restrictions: z.array(z.string()).nullable(),
});

export const checkScopeInput = z.object({ scope: apiKeyScopeSchema });
export const checkScopeOutput = z.object({ key_id: z.uuid(), scope: apiKeyScopeSchema, granted: z.literal(true) });
