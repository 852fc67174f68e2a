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
