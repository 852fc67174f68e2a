import type { BreakGlassStore, BreakGlassRecord, BreakGlassStatus, DecideResult, EndedRequest } from '../../server/ports/break-glass.js';
import type { EmbeddedDatabase } from './database.js';

interface Row {
  id: string;
  tenant_id: string;
  requester_id: string;
  reason: string;
  duration_minutes: number;
  status: BreakGlassStatus;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  expires_at: string | null;
}

const cols = 'id, tenant_id, requester_id, reason, duration_minutes, status, created_at, decided_at, decided_by, expires_at';
const toRecord = (r: Row): BreakGlassRecord => ({
  id: r.id,
  tenantId: r.tenant_id,
  requesterId: r.requester_id,
  reason: r.reason,
  durationMinutes: r.duration_minutes,
  status: r.status,
  createdAt: r.created_at,
  decidedAt: r.decided_at,
  decidedBy: r.decided_by,
  expiresAt: r.expires_at,
});

/** Break-glass requests in the embedded database. */
export function createEmbeddedBreakGlassStore(db: EmbeddedDatabase): BreakGlassStore {
  const insert = db.prepare(`INSERT INTO break_glass_requests (${cols}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const get = db.prepare(`SELECT ${cols} FROM break_glass_requests WHERE tenant_id = ? AND id = ?`);
  const list = db.prepare(`SELECT ${cols} FROM break_glass_requests WHERE tenant_id = ? ORDER BY created_at DESC, id`);
  const listBy = db.prepare(
    `SELECT ${cols} FROM break_glass_requests WHERE tenant_id = ? AND requester_id = ? ORDER BY created_at DESC, id`,
  );
  const decide = db.prepare(
    "UPDATE break_glass_requests SET status = ?, decided_by = ?, decided_at = ?, expires_at = ? WHERE tenant_id = ? AND id = ? AND status = 'pending'",
  );
  const grant = db.prepare(
    `SELECT ${cols} FROM break_glass_requests
      WHERE tenant_id = ? AND requester_id = ? AND status = 'approved' AND expires_at > ? AND created_at >= ?
      ORDER BY expires_at DESC LIMIT 1`,
  );
  const endable = db.prepare(
    `SELECT ${cols} FROM break_glass_requests
      WHERE tenant_id = ? AND requester_id = ? AND (status = 'pending' OR (status = 'approved' AND expires_at > ?))`,
  );
  const denyPending = db.prepare(
    "UPDATE break_glass_requests SET status = 'denied', decided_by = ?, decided_at = ? WHERE tenant_id = ? AND id = ? AND status = 'pending'",
  );
  const endApproved = db.prepare(
    "UPDATE break_glass_requests SET status = 'expired', expires_at = ? WHERE tenant_id = ? AND id = ? AND status = 'approved'",
  );
  const due = db.prepare(`SELECT ${cols} FROM break_glass_requests WHERE tenant_id = ? AND status = 'approved' AND expires_at <= ?`);
  const expire = db.prepare("UPDATE break_glass_requests SET status = 'expired' WHERE tenant_id = ? AND id = ? AND status = 'approved'");

  const decideTx = db.transaction(
    (
      tenantId: string,
      id: string,
      d: { status: 'approved' | 'denied'; decidedBy: string; decidedAt: string; expiresAt: string | null },
    ): DecideResult => {
      const current = get.get([tenantId, id]) as Row | undefined;
      if (!current) return { ok: false, reason: 'not_found' };
      if (decide.run([d.status, d.decidedBy, d.decidedAt, d.expiresAt, tenantId, id]).changes !== 1)
        return { ok: false, reason: 'already_decided' };
      return {
        ok: true,
        record: toRecord({ ...current, status: d.status, decided_by: d.decidedBy, decided_at: d.decidedAt, expires_at: d.expiresAt }),
      };
    },
  );
  const expireTx = db.transaction((tenantId: string, now: string) => {
    const changed: BreakGlassRecord[] = [];
    for (const row of due.all([tenantId, now]) as Row[]) {
      if (expire.run([tenantId, row.id]).changes === 1) changed.push(toRecord({ ...row, status: 'expired' }));
    }
    return changed;
  });

  const endTx = db.transaction((tenantId: string, requesterId: string, end: { at: string; by: string }) => {
    const ended: EndedRequest[] = [];
    for (const row of endable.all([tenantId, requesterId, end.at]) as Row[]) {
      if (row.status === 'pending') {
        denyPending.run([end.by, end.at, tenantId, row.id]);
        ended.push({ previous: 'pending', record: toRecord({ ...row, status: 'denied', decided_by: end.by, decided_at: end.at }) });
      } else {
        endApproved.run([end.at, tenantId, row.id]);
        ended.push({ previous: 'approved', record: toRecord({ ...row, status: 'expired', expires_at: end.at }) });
      }
    }
    return ended;
  });

  return {
    async create(r) {
      insert.run([
        r.id,
        r.tenantId,
        r.requesterId,
        r.reason,
        r.durationMinutes,
        r.status,
        r.createdAt,
        r.decidedAt,
        r.decidedBy,
        r.expiresAt,
      ]);
    },
    async get(tenantId, id) {
      const row = get.get([tenantId, id]) as Row | undefined;
      return row ? toRecord(row) : null;
    },
    async list(tenantId, filter) {
      const rows = (filter?.requesterId ? listBy.all([tenantId, filter.requesterId]) : list.all([tenantId])) as Row[];
      return rows.map(toRecord);
    },
    async decide(tenantId, id, decision) {
      return decideTx.immediate(tenantId, id, decision);
    },
    async activeGrant(tenantId, userId, now, requestedSince) {
      const row = grant.get([tenantId, userId, now, requestedSince]) as Row | undefined;
      return row ? toRecord(row) : null;
    },
    async expireDue(tenantId, now) {
      return expireTx.immediate(tenantId, now);
    },
    async endFor(tenantId, requesterId, end) {
      // IMMEDIATE: a concurrent approval either lands before (and is ended here) or finds the request denied.
      return endTx.immediate(tenantId, requesterId, end);
    },
  };
}
