/** What an API key may be allowed to do; each scope needs the role permission of the same name to be granted. */
export const apiKeyScopes = [
  'memories:read',
  'memories:write',
  'knowledge:read',
  'knowledge:write',
  'knowledge:admin',
  'usage:read',
] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

/** What each scope lets a key do, in words (the portal's scope picker, `GET /api/portal/scopes`). */
export const apiKeyScopeDescriptions: Record<ApiKeyScope, string> = {
  'memories:read': 'Read, list and search memories and their versions',
  'memories:write': 'Create, update, roll back and delete memories',
  'knowledge:read': 'Read knowledge structures and objects',
  'knowledge:write': 'Create, update and delete knowledge objects and trigger their enrichment',
  'knowledge:admin': 'Publish and activate knowledge structures',
  'usage:read': "Read the tenant's usage counters and plan limits",
};
