import type { RoleName } from '../services/roles.js';

/** A tenant: the unit of isolation. Every tenant-scoped record carries its id. */
export interface TenantRecord {
  id: string;
  name: string;
  /** `free` | `pro` | `enterprise`. */
  plan: string;
  /** `active` | `suspended` (`TenantStatus`); only an active tenant's members and keys may act on it. */
  status: string;
  /** ISO 8601. */
  createdAt: string;
}

export const tenantStatuses = ['active', 'suspended'] as const;
export type TenantStatus = (typeof tenantStatuses)[number];

/** A user's place in a tenant. */
export interface MembershipRecord {
  tenantId: string;
  userId: string;
  role: RoleName;
  /** The tenant created for the user at sign-up. */
  isDefault: boolean;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601: when the current role was set (`createdAt` until a role change). */
  roleSince: string;
}

/** One of a user's tenants, with the membership that links them, in membership order. */
export interface UserTenant {
  tenant: TenantRecord;
  membership: MembershipRecord;
}

export interface MemberRecord extends MembershipRecord {
  email: string;
  name: string | null;
}

/** `role_changed`: the member no longer holds the role the caller read (and decided on); nothing changed. */
export type RoleChangeResult =
  { ok: true; previous: RoleName; member: MemberRecord } | { ok: false; reason: 'not_found' | 'role_changed' | 'last_owner' };

export type RemoveMemberResult = { ok: true; member: MemberRecord } | { ok: false; reason: 'not_found' | 'role_changed' | 'last_owner' };

export interface TenantStore {
  /** Creates the tenant and makes `owner` its owner, atomically. */
  create(tenant: TenantRecord, owner: { userId: string; isDefault: boolean; createdAt: string }): Promise<TenantRecord>;
  get(tenantId: string): Promise<TenantRecord | null>;
  /**
   * Sets the tenant's status (an operator's action: `tenant-memory tenant suspend|resume`). Returns the
   * tenant after the change with the status it had before, or null when there is no such tenant.
   */
  setStatus(tenantId: string, status: TenantStatus): Promise<{ tenant: TenantRecord; previous: string } | null>;
  /** The user's tenants, oldest membership first (the first is the "primary" tenant). */
  listForUser(userId: string): Promise<UserTenant[]>;
  membership(tenantId: string, userId: string): Promise<MembershipRecord | null>;
  listMembers(tenantId: string): Promise<MemberRecord[]>;
  getMember(tenantId: string, userId: string): Promise<MemberRecord | null>;
  /** Adds a member (their role set at `createdAt`); false when the user already is one. */
  addMember(tenantId: string, membership: Omit<MembershipRecord, 'tenantId' | 'roleSince'>): Promise<boolean>;
  /**
   * Changes a member's role from `change.from` to `change.to`, atomically and only while they still
   * hold `from` (compare-and-set: the caller's permission and step-up decisions were made on it;
   * otherwise `role_changed`). Refuses (`last_owner`) to demote the tenant's only owner, so a tenant
   * can never be left without one. `at` becomes the membership's `roleSince`.
   */
  changeRole(tenantId: string, userId: string, change: { from: RoleName; to: RoleName; at: string }): Promise<RoleChangeResult>;
  /**
   * Ends a membership atomically, only while the member still holds `expectedRole` (otherwise
   * `role_changed`); refuses (`last_owner`) to remove the tenant's only owner.
   */
  removeMember(tenantId: string, userId: string, expectedRole: RoleName): Promise<RemoveMemberResult>;
  /**
   * Every tenant id in id order, a page at a time (`after`: the last id of the previous page), for
   * maintenance that spans tenants (`tenant-memory reindex`). Never used to answer a request.
   */
  listIds(after: string | null, limit: number): Promise<string[]>;
}
