import type { ApiKeyScope } from '../api-key-scopes.js';
import { AppError } from '../errors.js';

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
  // Publish and activate knowledge structures (owners and admins).
  'knowledge:admin',
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

const readOnly: Permission[] = [
  'tenant:read',
  'members:read',
  'roles:read',
  'api_keys:read',
  'memories:read',
  'knowledge:read',
  'usage:read',
];
const member: Permission[] = [...readOnly, 'api_keys:manage', 'memories:write', 'knowledge:write', 'break_glass:request'];
const admin: Permission[] = permissions.filter((p) => p !== 'tenant:manage');

export const builtInRoles: readonly RoleDefinition[] = [
  { name: 'owner', description: 'Full control of the tenant, including its settings and members', permissions: [...permissions] },
  { name: 'admin', description: 'Manages members, keys, data and audit; cannot change tenant settings', permissions: admin },
  {
    name: 'member',
    description: 'Uses the tenant: reads and writes memories and knowledge, manages the API keys they created',
    permissions: member,
  },
  { name: 'viewer', description: 'Read-only access to the tenant', permissions: readOnly },
];

export function roleByName(name: string): RoleDefinition | undefined {
  return builtInRoles.find((r) => r.name === name);
}

/** The permissions a role carries by itself, without any break-glass grant. */
export function basePermissions(role: RoleName): readonly Permission[] {
  return roleByName(role)?.permissions ?? [];
}

/** Whether a role carries a permission by itself (a break-glass grant never counts here). */
export function roleHas(role: RoleName, permission: Permission): boolean {
  return basePermissions(role).includes(permission);
}

/** `a` is strictly more powerful than `b`; `roleNames` lists the roles most powerful first. */
export function outranks(a: RoleName, b: RoleName): boolean {
  return roleNames.indexOf(a) < roleNames.indexOf(b);
}

/** Owner and admin: the roles that manage the tenant's people, keys and data. */
export function isPrivileged(role: RoleName): boolean {
  return outranks(role, 'member');
}

/**
 * Whether someone whose own role is `actorRole` may give `role` to a person, or change or remove a
 * person holding it: they manage members, and nobody hands out or touches a role above their own
 * (so only owners make, demote or remove owners).
 */
export function mayAssign(actorRole: RoleName, role: RoleName): boolean {
  return roleHas(actorRole, 'members:manage') && !outranks(role, actorRole);
}

/** Throws 403 unless `actorRole` may assign each of `roles` (`mayAssign`), saying which rule refused. */
export function assertMayAssign(actorRole: RoleName, ...roles: RoleName[]): void {
  if (roles.every((role) => mayAssign(actorRole, role))) return;
  if (!roleHas(actorRole, 'members:manage')) throw new AppError('FORBIDDEN', `role '${actorRole}' may not manage members`);
  throw new AppError('FORBIDDEN', 'only an owner may grant, change or remove the owner role');
}

/**
 * Whether moving someone from `from` (null: joining by invitation) to `to` makes them owner or admin
 * from a lesser place: the changes a stolen session must not make alone (a step-up token is asked for).
 */
export function elevates(from: RoleName | null, to: RoleName): boolean {
  return isPrivileged(to) && (from === null || outranks(to, from));
}

/** What a break-glass approval grants for its duration (less `baseRoleOnly`). */
export const breakGlassRole: RoleName = 'admin';

/**
 * Permissions that follow the holder's own base role and that a break-glass grant never adds: an
 * emergency elevation must not become a lasting one (changing roles, managing members, approving
 * grants, minting API keys, which outlive the grant, or taking over other people's keys).
 */
export const baseRoleOnly: ReadonlySet<Permission> = new Set<Permission>([
  'tenant:manage',
  'members:manage',
  'api_keys:manage',
  'api_keys:manage_all',
  'break_glass:approve',
]);

/** The permissions an approved break-glass grant adds to its holder's own. */
export const breakGlassPermissions: readonly Permission[] = (roleByName(breakGlassRole)?.permissions ?? []).filter(
  (p) => !baseRoleOnly.has(p),
);

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
  'knowledge:admin': 'knowledge:admin',
  'usage:read': 'usage:read',
};

/** The API-key scopes a role's own permissions cover. */
export function scopesAllowedFor(role: RoleName): ApiKeyScope[] {
  const held = new Set<Permission>(roleByName(role)?.permissions ?? []);
  return (Object.keys(keyScopeRequires) as ApiKeyScope[]).filter((scope) => held.has(keyScopeRequires[scope]));
}
