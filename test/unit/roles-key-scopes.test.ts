import { describe, expect, it } from 'vitest';
import { apiKeyScopes } from '../../server/principal.js';
import { breakGlassPermissions, keyScopeRequires, scopesAllowedFor } from '../../server/services/roles.js';

// API keys outlive any break-glass grant, so minting one, and the scopes it may carry, follow the
// creator's own role. Pinned as tables: the expectations are written here, not derived from roles.ts.
describe('API-key scopes and roles', () => {
  it.each([
    ['owner', [...apiKeyScopes]],
    ['admin', [...apiKeyScopes]],
    ['member', ['memories:read', 'memories:write', 'knowledge:read', 'knowledge:write', 'usage:read']],
    ['viewer', ['memories:read', 'knowledge:read', 'usage:read']],
  ] as const)('role %s may issue keys with exactly %j', (role, scopes) => {
    expect(scopesAllowedFor(role)).toEqual(scopes);
  });

  it('maps every scope to the role permission of the same name', () => {
    expect(Object.keys(keyScopeRequires).sort()).toEqual([...apiKeyScopes].sort());
    for (const scope of apiKeyScopes) expect(keyScopeRequires[scope]).toBe(scope);
  });

  it('a break-glass grant lends no key management at all: neither minting keys nor taking over others’', () => {
    expect(breakGlassPermissions).not.toContain('api_keys:manage');
    expect(breakGlassPermissions).not.toContain('api_keys:manage_all');
    // What the grant is for still comes with it.
    expect(breakGlassPermissions).toEqual(expect.arrayContaining(['audit:read', 'memories:write', 'knowledge:write']));
  });
});
