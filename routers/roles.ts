import { z } from 'zod';
import { notFound } from '../server/errors.js';
import { emptyInput } from '../server/schemas/common.js';
import { safeText } from '../server/schemas/safe-text.js';
import { requirePermission } from '../server/procedures.js';
import { builtInRoles, permissions, roleByName, type RoleDefinition } from '../server/services/roles.js';
import { router } from '../server/trpc.js';

const tags = ['Roles'];

export const roleSchema = z.object({
  name: z.string(),
  description: z.string(),
  permissions: z.array(z.enum(permissions)),
});

export const toRole = (r: RoleDefinition) => ({ name: r.name, description: r.description, permissions: [...r.permissions] });

/** `/roles`: the built-in roles and the permissions each carries. */
export const rolesRouter = router({
  list: requirePermission('roles:read')
    .meta({
      openapi: { method: 'GET', path: '/roles', tags, summary: 'Built-in roles and their permissions', protect: true },
      auth: 'bearer',
    })
    .input(emptyInput)
    .output(z.object({ roles: z.array(roleSchema) }))
    .query(() => ({ roles: builtInRoles.map(toRole) })),

  get: requirePermission('roles:read')
    .meta({
      openapi: { method: 'GET', path: '/roles/{name}', tags, summary: 'One role by name (404 if unknown)', protect: true },
      auth: 'bearer',
    })
    .input(z.object({ name: safeText().min(1).max(64) }))
    .output(roleSchema)
    .query(({ input }) => {
      const role = roleByName(input.name);
      if (!role) throw notFound('role');
      return toRole(role);
    }),
});
