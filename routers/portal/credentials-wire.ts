import type { z } from 'zod';
import type { ApiKeyView, CreateApiKeyInput } from '../../server/services/api-keys.js';
import type { portalCredential, portalCredentialInput } from './credentials-schemas.js';

/** The portal credentials routes' wire form of what the API key service takes and returns. */

export const fromPortalCredentialBody = (body: z.output<typeof portalCredentialInput>): CreateApiKeyInput => ({
  name: body.name,
  scopes: body.scopes,
  namespaceRestrictions: body.namespaces,
  ipAllowlist: body.ip_allowlist,
});

export const toPortalCredential = (key: ApiKeyView): z.infer<typeof portalCredential> => ({
  id: key.keyId,
  name: key.name,
  prefix: key.prefix,
  scopes: key.scopes,
  namespaces: key.namespaceRestrictions,
  ip_allowlist: key.ipAllowlist,
  created_at: key.createdAt,
  created_by: key.createdBy,
  last_used_at: key.lastUsedAt,
  expires_at: null,
  rotated_at: key.rotatedAt,
  revoked_at: key.revokedAt,
  status: key.status,
});
