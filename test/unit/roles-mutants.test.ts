import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/errors.js';
import {
  assertMayAssign,
  basePermissions,
  breakGlassRole,
  builtInRoles,
  elevates,
  isPrivileged,
  mayAssign,
  outranks,
  permissions,
  roleByName,
  roleHas,
  roleNames,
  type RoleName,
} from '../../server/services/roles.js';

// Pins the built-in permission matrix: every bearer route trusts it, so one permission added to or
// dropped from a role must fail a test (mutation testing found the table unguarded by fast tests).
const matrix: Record<string, Record<string, boolean>> = {
  //                      owner  admin  member viewer
  'tenant:read': row(true, true, true, true),
  'tenant:manage': row(true, false, false, false),
  'members:read': row(true, true, true, true),
  'members:manage': row(true, true, false, false),
  'roles:read': row(true, true, true, true),
  'api_keys:read': row(true, true, true, true),
  'api_keys:manage': row(true, true, true, false),
  'api_keys:manage_all': row(true, true, false, false),
  'audit:read': row(true, true, false, false),
  'memories:read': row(true, true, true, true),
  'memories:write': row(true, true, true, false),
  'knowledge:read': row(true, true, true, true),
  'knowledge:write': row(true, true, true, false),
  'knowledge:admin': row(true, true, false, false),
  'usage:read': row(true, true, true, true),
  'break_glass:request': row(true, true, true, false),
  'break_glass:approve': row(true, true, false, false),
  'data:export': row(true, true, false, false),
  'data:delete': row(true, true, false, false),
  'retention:override': row(true, true, false, false),
};

function row(owner: boolean, admin: boolean, member: boolean, viewer: boolean) {
  return { owner, admin, member, viewer };
}

describe('built-in roles', () => {
  it('lists exactly the permissions of the matrix, each once', () => {
    expect([...permissions].sort()).toEqual(Object.keys(matrix).sort());
  });

  it('has the four roles, most powerful first', () => {
    expect(builtInRoles.map((r) => r.name)).toEqual(['owner', 'admin', 'member', 'viewer']);
    expect([...roleNames]).toEqual(['owner', 'admin', 'member', 'viewer']);
  });

  it.each(Object.entries(matrix))('%s is granted to exactly the expected roles', (permission, expected) => {
    for (const role of roleNames) {
      expect({ role, granted: roleByName(role)!.permissions.includes(permission as never) }).toEqual({ role, granted: expected[role] });
    }
  });

  it('grants no permission twice within a role', () => {
    for (const role of builtInRoles) expect(new Set(role.permissions).size).toBe(role.permissions.length);
  });

  it('describes every role', () => {
    for (const role of builtInRoles) expect(role.description.trim().length).toBeGreaterThan(10);
  });

  it('finds a role by its exact name only', () => {
    expect(roleByName('admin')?.name).toBe('admin');
    expect(roleByName('Admin')).toBeUndefined();
    expect(roleByName('superuser')).toBeUndefined();
    expect(roleByName('')).toBeUndefined();
  });

  it('a break-glass grant lends the admin role, which is not the owner role', () => {
    expect(breakGlassRole).toBe('admin');
  });
});

describe('role ordering and assignment', () => {
  const roles = [...roleNames];
  /** The role table's order, most powerful first: each row outranks exactly the ones after it. */
  it.each(roles)('%s outranks exactly the roles listed after it', (a) => {
    expect(roles.filter((b) => outranks(a, b))).toEqual(roles.slice(roles.indexOf(a) + 1));
  });

  it('owner and admin are the privileged roles', () => {
    expect(roles.filter(isPrivileged)).toEqual(['owner', 'admin']);
  });

  it('base permissions are the role table’s, and roleHas reads them', () => {
    for (const role of roles) {
      expect(basePermissions(role)).toEqual(roleByName(role)!.permissions);
      for (const p of permissions) expect(roleHas(role, p)).toBe(roleByName(role)!.permissions.includes(p));
    }
  });

  // actor → the roles they may give, change or remove
  const assignable: Record<RoleName, RoleName[]> = {
    owner: ['owner', 'admin', 'member', 'viewer'],
    admin: ['admin', 'member', 'viewer'],
    member: [],
    viewer: [],
  };
  it.each(roles)('%s may assign exactly the expected roles', (actor) => {
    expect(roles.filter((r) => mayAssign(actor, r))).toEqual(assignable[actor]);
  });

  // from → the targets that elevate (need a step-up token)
  const elevating: Record<RoleName | 'none', RoleName[]> = {
    none: ['owner', 'admin'],
    viewer: ['owner', 'admin'],
    member: ['owner', 'admin'],
    admin: ['owner'],
    owner: [],
  };
  it.each(Object.keys(elevating))('from %s, exactly the expected changes elevate', (from) => {
    const start = from === 'none' ? null : (from as RoleName);
    expect(roles.filter((to) => elevates(start, to))).toEqual(elevating[from as RoleName | 'none']);
  });
});

describe('assertMayAssign', () => {
  const refusal = (actor: RoleName, ...roles: RoleName[]) => {
    try {
      assertMayAssign(actor, ...roles);
      return null;
    } catch (err) {
      return err instanceof AppError ? { code: err.code, message: err.message } : err;
    }
  };

  it('passes exactly when every role may be assigned, and says which rule refused', () => {
    expect(refusal('owner', 'owner', 'viewer')).toBeNull();
    expect(refusal('admin', 'admin', 'member')).toBeNull();
    expect(refusal('admin', 'member', 'owner')).toEqual({
      code: 'FORBIDDEN',
      message: 'only an owner may grant, change or remove the owner role',
    });
    expect(refusal('admin', 'owner')).toEqual({ code: 'FORBIDDEN', message: 'only an owner may grant, change or remove the owner role' });
    expect(refusal('member', 'viewer')).toEqual({ code: 'FORBIDDEN', message: "role 'member' may not manage members" });
    expect(refusal('viewer', 'viewer')).toEqual({ code: 'FORBIDDEN', message: "role 'viewer' may not manage members" });
  });
});
