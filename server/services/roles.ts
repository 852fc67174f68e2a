import type { ApiKeyScope } from '../principal.js';

/**
 * Built-in roles and the permissions they carry. Permissions are checked on every bearer route;
 * API keys carry scopes instead (see api-keys scopes).
 */
export const permissions = [
  'tenant:read',
  'tenant:manage',
  'members:read',
  'members:manage',
  'roles:read',
  'api_keys:read',
  'api_keys:manage',
  // Rotate and revoke keys other users created; without it, `api_keys:manage` covers one's own keys only.
  'api_keys:manage_all',
  'audit:read',
  'memories:read',
  'memories:write',
  'knowledge:read',
  'knowledge:write',
  'usage:read',
  'break_glass:request',
  'break_glass:approve',
  'data:export',
  'data:delete',
  'retention:override',
] as const;

export type Permission = (typeof permissions)[number];

export const roleNames = ['owner', 'admin', 'member', 'viewer'] as const;
export type RoleName = (typeof roleNames)[number];

export interface RoleDefinition {
  name: RoleName;
  description: string;
  permissions: readonly Permission[];
}

const readOnly: Permission[] = ['tenant:read', 'members:read', 'roles:read', 'api_keys:read', 'memories:read', 'knowledge:read', 'usage:read'];
const member: Permission[] = [...readOnly, 'api_keys:manage', 'memories:write', 'knowledge:write', 'break_glass:request'];
const admin: Permission[] = permissions.filter((p) => p !== 'tenant:manage');

export const builtInRoles: readonly RoleDefinition[] = [
  { name: 'owner', description: 'Full control of the tenant, including its settings and members', permissions: [...permissions] },
  { name: 'admin', description: 'Manages members, keys, data and audit; cannot change tenant settings', permissions: admin },
  { name: 'member', description: 'Uses the tenant: reads and writes memories and knowledge, manages the API keys they created', permissions: member },
  { name: 'viewer', description: 'Read-only access to the tenant', permissions: readOnly },
];

export function roleByName(name: string): RoleDefinition | undefined {
  return builtInRoles.find((r) => r.name === name);
}

/** What a break-glass approval grants for its duration (less `baseRoleOnly`). */
export const breakGlassRole: RoleName = 'admin';

/**
 * Permissions that follow the holder's own base role and that a break-glass grant never adds: an
 * emergency elevation must not become a lasting one (changing roles, managing members, approving
 * grants, minting API keys, which outlive the grant, or taking over other people's keys).
 */
export const baseRoleOnly: ReadonlySet<Permission> = new Set<Permission>(['tenant:manage', 'members:manage', 'api_keys:manage', 'api_keys:manage_all', 'break_glass:approve']);

/** The permissions an approved break-glass grant adds to its holder's own. */
export const breakGlassPermissions: readonly Permission[] = (roleByName(breakGlassRole)?.permissions ?? []).filter((p) => !baseRoleOnly.has(p));

/**
 * The role permission each API-key scope stands for. A key acts with its scopes for as long as it
 * lives, so whoever receives its secret (creating or rotating it) must hold each of them by their own
 * base role, never through a grant.
 */
export const keyScopeRequires: Readonly<Record<ApiKeyScope, Permission>> = {
  'memories:read': 'memories:read',
  'memories:write': 'memories:write',
  'knowledge:read': 'knowledge:read',
  'knowledge:write': 'knowledge:write',
  'usage:read': 'usage:read',
};

/** The API-key scopes a role's own permissions cover. */
export function scopesAllowedFor(role: RoleName): ApiKeyScope[] {
  const held = new Set<Permission>(roleByName(role)?.permissions ?? []);
  return (Object.keys(keyScopeRequires) as ApiKeyScope[]).filter((scope) => held.has(keyScopeRequires[scope]));
}
