import type { z } from 'zod';
import type { ApiKeyView, CreateApiKeyInput } from '../../server/services/api-keys.js';
import type {
  apiKeySummary,
  createApiKeyInput,
  createApiKeyOutput,
  currentApiKeyOutput,
  revokeApiKeyOutput,
  rotateApiKeyOutput,
} from './schemas.js';

/** The `/api-keys` routes' wire form (snake_case) of what the API key service takes and returns. */

export const fromCreateApiKeyBody = (body: z.output<typeof createApiKeyInput>): CreateApiKeyInput => ({
  name: body.name,
  scopes: body.scopes,
  namespaceRestrictions: body.namespace_restrictions,
  ipAllowlist: body.ip_allowlist,
});

export function toApiKeySummary(key: ApiKeyView): z.infer<typeof apiKeySummary> {
  return {
    key_id: key.keyId,
    name: key.name,
    scopes: key.scopes,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    status: key.status,
    namespace_restrictions: key.namespaceRestrictions,
    ip_allowlist: key.ipAllowlist,
    prefix: key.prefix,
    rotated_at: key.rotatedAt,
    revoked_at: key.revokedAt,
  };
}

export const toCreatedApiKey = (key: ApiKeyView, secret: string): z.infer<typeof createApiKeyOutput> => ({
  key_id: key.keyId,
  secret,
  tenant_id: key.tenantId,
  name: key.name,
  scopes: key.scopes,
  namespace_restrictions: key.namespaceRestrictions,
  ip_allowlist: key.ipAllowlist,
  prefix: key.prefix,
  created_at: key.createdAt,
});

export const toCurrentApiKey = (key: ApiKeyView): z.infer<typeof currentApiKeyOutput> => ({
  key_id: key.keyId,
  tenant_id: key.tenantId,
  name: key.name,
  scopes: key.scopes,
  namespace_restrictions: key.namespaceRestrictions,
});

/** A rotated key always has `rotatedAt`, a revoked one `revokedAt`: the service just set them. */
export const toRotatedApiKey = (key: ApiKeyView, secret: string): z.infer<typeof rotateApiKeyOutput> => ({
  key_id: key.keyId,
  secret,
  prefix: key.prefix,
  rotated_at: key.rotatedAt!,
});

export const toRevokedApiKey = (key: ApiKeyView): z.infer<typeof revokeApiKeyOutput> => ({
  key_id: key.keyId,
  status: 'revoked',
  revoked_at: key.revokedAt!,
});
