import type { RoleName } from '../../server/services/roles.js';
import type { MemberRecord, MembershipRecord, TenantRecord, TenantStore, UserTenant } from '../../server/ports/tenants.js';
import type { EmbeddedDatabase } from './database.js';

interface TenantRow {
  id: string;
  name: string;
  plan: string;
  status: string;
  created_at: string;
}

interface MembershipRow {
  tenant_id: string;
  user_id: string;
  role: RoleName;
  is_default: number;
  created_at: string;
  /** NULL until the first role change (and in rows older than migration 6). */
  role_since: string | null;
}

const toTenant = (r: TenantRow): TenantRecord => ({ id: r.id, name: r.name, plan: r.plan, status: r.status, createdAt: r.created_at });
const toMembership = (r: MembershipRow): MembershipRecord => ({
  tenantId: r.tenant_id,
  userId: r.user_id,
  role: r.role,
  isDefault: r.is_default === 1,
  createdAt: r.created_at,
  roleSince: r.role_since ?? r.created_at,
});
const toMember = (r: MembershipRow & { email: string; name: string | null }): MemberRecord => ({
  ...toMembership(r),
  email: r.email,
  name: r.name,
});

/** Tenants and memberships in the embedded database. */
export function createEmbeddedTenantStore(db: EmbeddedDatabase): TenantStore {
  const insertTenant = db.prepare('INSERT INTO tenants (id, name, plan, status, created_at) VALUES (?, ?, ?, ?, ?)');
  const insertMember = db.prepare(
    `INSERT INTO memberships (tenant_id, user_id, role, is_default, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(tenant_id, user_id) DO NOTHING`,
  );
  const getTenant = db.prepare('SELECT id, name, plan, status, created_at FROM tenants WHERE id = ?');
  const idsAfter = db.prepare('SELECT id FROM tenants WHERE id > ? ORDER BY id LIMIT ?').pluck();
  const forUser = db.prepare(
    `SELECT t.id, t.name, t.plan, t.status, t.created_at,
            m.tenant_id, m.user_id, m.role, m.is_default, m.created_at AS m_created_at, m.role_since
       FROM memberships m JOIN tenants t ON t.id = m.tenant_id
      WHERE m.user_id = ?
      ORDER BY m.created_at, m.rowid`,
  );
  const membership = db.prepare(
    'SELECT tenant_id, user_id, role, is_default, created_at, role_since FROM memberships WHERE tenant_id = ? AND user_id = ?',
  );
  const memberCols = 'm.tenant_id, m.user_id, m.role, m.is_default, m.created_at, m.role_since, u.email, u.name';
  const members = db.prepare(
    `SELECT ${memberCols} FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.tenant_id = ? ORDER BY m.created_at, m.rowid`,
  );
  const member = db.prepare(
    `SELECT ${memberCols} FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.tenant_id = ? AND m.user_id = ?`,
  );
  const owners = db.prepare("SELECT COUNT(*) AS n FROM memberships WHERE tenant_id = ? AND role = 'owner'");
  const setRole = db.prepare('UPDATE memberships SET role = ?, role_since = ? WHERE tenant_id = ? AND user_id = ?');
  const deleteMember = db.prepare('DELETE FROM memberships WHERE tenant_id = ? AND user_id = ?');
  const setStatus = db.prepare('UPDATE tenants SET status = ? WHERE id = ?');

  const createTx = db.transaction((tenant: TenantRecord, owner: { userId: string; isDefault: boolean; createdAt: string }) => {
    insertTenant.run([tenant.id, tenant.name, tenant.plan, tenant.status, tenant.createdAt]);
    insertMember.run([tenant.id, owner.userId, 'owner', owner.isDefault ? 1 : 0, owner.createdAt]);
  });

  type Row = MembershipRow & { email: string; name: string | null };
  const setStatusTx = db.transaction((tenantId: string, status: string) => {
    const before = getTenant.get([tenantId]) as TenantRow | undefined;
    if (!before) return null;
    setStatus.run([status, tenantId]);
    return { tenant: toTenant({ ...before, status }), previous: before.status };
  });
  const changeRoleTx = db.transaction((tenantId: string, userId: string, from: RoleName, role: RoleName, at: string) => {
    const current = member.get([tenantId, userId]) as Row | undefined;
    if (!current) return { ok: false as const, reason: 'not_found' as const };
    if (current.role !== from) return { ok: false as const, reason: 'role_changed' as const };
    if (current.role === 'owner' && role !== 'owner') {
      const { n } = owners.get([tenantId]) as { n: number };
      if (n <= 1) return { ok: false as const, reason: 'last_owner' as const };
    }
    setRole.run([role, at, tenantId, userId]);
    return { ok: true as const, previous: current.role, member: toMember({ ...current, role, role_since: at }) };
  });

  const removeTx = db.transaction((tenantId: string, userId: string, expectedRole: RoleName) => {
    const current = member.get([tenantId, userId]) as Row | undefined;
    if (!current) return { ok: false as const, reason: 'not_found' as const };
    if (current.role !== expectedRole) return { ok: false as const, reason: 'role_changed' as const };
    if (current.role === 'owner' && (owners.get([tenantId]) as { n: number }).n <= 1)
      return { ok: false as const, reason: 'last_owner' as const };
    deleteMember.run([tenantId, userId]);
    return { ok: true as const, member: toMember(current) };
  });

  return {
    async create(tenant, owner) {
      // IMMEDIATE: take the write lock up front so a concurrent writer process waits instead of failing mid-way.
      createTx.immediate(tenant, owner);
      return tenant;
    },
    async get(tenantId) {
      const row = getTenant.get([tenantId]) as TenantRow | undefined;
      return row ? toTenant(row) : null;
    },
    async setStatus(tenantId, status) {
      return setStatusTx.immediate(tenantId, status);
    },
    async listForUser(userId) {
      const rows = forUser.all([userId]) as Array<TenantRow & MembershipRow & { m_created_at: string }>;
      return rows.map((r): UserTenant => ({
        tenant: toTenant(r),
        membership: toMembership({ ...r, created_at: r.m_created_at }),
      }));
    },
    async listIds(after, limit) {
      return idsAfter.all([after ?? '', limit]) as string[];
    },
    async membership(tenantId, userId) {
      const row = membership.get([tenantId, userId]) as MembershipRow | undefined;
      return row ? toMembership(row) : null;
    },
    async listMembers(tenantId) {
      return (members.all([tenantId]) as Row[]).map(toMember);
    },
    async getMember(tenantId, userId) {
      const row = member.get([tenantId, userId]) as Row | undefined;
      return row ? toMember(row) : null;
    },
    async addMember(tenantId, m) {
      const { changes } = insertMember.run([tenantId, m.userId, m.role, m.isDefault ? 1 : 0, m.createdAt]);
      return changes === 1;
    },
    async changeRole(tenantId, userId, change) {
      // IMMEDIATE: the role compared is the role replaced, with no writer in between.
      return changeRoleTx.immediate(tenantId, userId, change.from, change.to, change.at);
    },
    async removeMember(tenantId, userId, expectedRole) {
      return removeTx.immediate(tenantId, userId, expectedRole);
    },
  };
}
