import { randomUUID } from 'node:crypto';
import { AppError, notFound } from '../errors.js';
import type { MemberRecord, TenantRecord, TenantStatus, TenantStore, UserTenant } from '../ports/tenants.js';
import type { AuditService, RequestMeta } from './audit.js';
import { isoAt, systemClock, type Clock } from './clock.js';
import type { RoleName } from './roles.js';

/** Who acts on a tenant: a signed-in user with a base role there (break-glass does not change it). */
export interface TenantActor {
  userId: string;
  tenantId: string;
  role: RoleName;
  /** The portal's session: a step-up token the actor shows must have been earned in it (bearer callers leave it out). */
  sessionId?: string;
}

/**
 * The one tenant-status rule, applied where requests authenticate (bearer middleware, API-key
 * authenticator): a tenant that is not `active` is refused with 403 TENANT_SUSPENDED. Its data is
 * kept and its accepted writes still consolidate; only acting on it is refused.
 */
export function assertTenantActive(tenant: Pick<TenantRecord, 'status'>): void {
  if (tenant.status !== 'active') throw new AppError('TENANT_SUSPENDED', 'this tenant is suspended; contact the operator of this service');
}

export interface TenantsService {
  /** The user's tenants, oldest membership first. */
  listForUser(userId: string): Promise<UserTenant[]>;
  /** The first tenant of the user's memberships (the spec's "primary" tenant). */
  primary(userId: string): Promise<UserTenant | null>;
  /** Creates a tenant (plan free, status active) whose owner is the user. */
  create(userId: string, input: { name: string; isDefault?: boolean }, meta: RequestMeta): Promise<UserTenant>;
  listMembers(tenantId: string): Promise<MemberRecord[]>;
  /** An operator's action (`tenant-memory tenant suspend|resume`): sets the status; a change is audited. 404 for an unknown tenant. */
  setStatus(tenantId: string, status: TenantStatus, meta: RequestMeta): Promise<TenantRecord>;
}

export function createTenantsService(deps: { tenants: TenantStore; audit: AuditService; clock?: Clock }): TenantsService {
  const { tenants, audit } = deps;
  const now = deps.clock ?? systemClock;

  return {
    listForUser: (userId) => tenants.listForUser(userId),

    async primary(userId) {
      return (await tenants.listForUser(userId))[0] ?? null;
    },

    async create(userId, input, meta) {
      const name = input.name.trim();
      if (!name)
        throw new AppError('VALIDATION_FAILED', 'name: must not be empty', { fields: [{ field: 'name', message: 'must not be empty' }] });
      const createdAt = isoAt(now());
      const tenant = await tenants.create(
        { id: randomUUID(), name, plan: 'free', status: 'active', createdAt },
        { userId, isDefault: input.isDefault ?? false, createdAt },
      );
      await audit.record({
        tenantId: tenant.id,
        type: 'tenant.create',
        actor: { userId },
        ...meta,
        target: { type: 'tenant', id: tenant.id },
        details: { name, plan: tenant.plan },
      });
      return {
        tenant,
        membership: { tenantId: tenant.id, userId, role: 'owner', isDefault: input.isDefault ?? false, createdAt, roleSince: createdAt },
      };
    },

    listMembers: (tenantId) => tenants.listMembers(tenantId),

    async setStatus(tenantId, status, meta) {
      const result = await tenants.setStatus(tenantId, status);
      if (!result) throw notFound('tenant');
      if (result.previous !== status) {
        await audit.record({
          tenantId,
          type: 'tenant.status_change',
          actor: {},
          ...meta,
          target: { type: 'tenant', id: tenantId },
          details: { from: result.previous, to: status },
        });
      }
      return result.tenant;
    },
  };
}
