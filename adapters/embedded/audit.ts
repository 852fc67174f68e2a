import type { AuditEventRecord, AuditHead, AuditStore } from '../../server/ports/audit.js';
import { auditTypeRange, type AuditFilter } from '../../server/storage-rules/audit-filter.js';
import type { EmbeddedDatabase } from './database.js';
import { preparedStatement } from './statement-cache.js';

interface Row {
  tenant_id: string;
  seq: number;
  id: string;
  type: string;
  actor_user_id: string | null;
  actor_key_id: string | null;
  ip: string | null;
  user_agent: string | null;
  target_type: string | null;
  target_id: string | null;
  details: string | null;
  created_at: string;
  prev_hash: string;
  hash: string;
}

const cols =
  'tenant_id, seq, id, type, actor_user_id, actor_key_id, ip, user_agent, target_type, target_id, details, created_at, prev_hash, hash';

function toEvent(r: Row): AuditEventRecord {
  const actor: AuditEventRecord['actor'] = {};
  if (r.actor_user_id !== null) actor.userId = r.actor_user_id;
  if (r.actor_key_id !== null) actor.keyId = r.actor_key_id;
  return {
    id: r.id,
    tenantId: r.tenant_id,
    seq: Number(r.seq),
    type: r.type,
    actor,
    ip: r.ip,
    userAgent: r.user_agent,
    target: r.target_type !== null && r.target_id !== null ? { type: r.target_type, id: r.target_id } : null,
    details: r.details === null ? null : (JSON.parse(r.details) as Record<string, unknown>),
    createdAt: r.created_at,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

/** The WHERE clause of a filtered list: a handful of shapes, so each keeps one prepared statement. */
function whereOf(tenantId: string, filter: AuditFilter): { where: string; params: unknown[] } {
  const clauses = ['tenant_id = ?'];
  const params: unknown[] = [tenantId];
  if (filter.type !== undefined) {
    const range = auditTypeRange(filter.type);
    if ('eq' in range) {
      clauses.push('type = ?');
      params.push(range.eq);
    } else {
      clauses.push('type >= ? AND type < ?');
      params.push(range.gte, range.lt);
    }
  }
  if (filter.actor !== undefined) {
    clauses.push('(actor_user_id = ? OR actor_key_id = ?)');
    params.push(filter.actor, filter.actor);
  }
  if (filter.from !== undefined) {
    clauses.push('created_at >= ?');
    params.push(filter.from);
  }
  if (filter.to !== undefined) {
    clauses.push('created_at <= ?');
    params.push(filter.to);
  }
  return { where: clauses.join(' AND '), params };
}

/**
 * The audit log in the embedded database. Appends run in an IMMEDIATE transaction that reads the
 * head, inserts the event and moves the head, so two writers (even in two processes) can never
 * both extend the same head: the chain cannot fork.
 */
export function createEmbeddedAuditStore(db: EmbeddedDatabase): AuditStore {
  const getHead = db.prepare('SELECT seq, hash FROM audit_heads WHERE tenant_id = ?');
  const upsertHead = db.prepare(
    'INSERT INTO audit_heads (tenant_id, seq, hash) VALUES (?, ?, ?) ON CONFLICT(tenant_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash',
  );
  const insert = db.prepare(`INSERT INTO audit_events (${cols}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const range = db.prepare(`SELECT ${cols} FROM audit_events WHERE tenant_id = ? AND seq > ? ORDER BY seq LIMIT ?`);

  const appendTx = db.transaction((tenantId: string, build: (head: AuditHead | null) => AuditEventRecord) => {
    const row = getHead.get([tenantId]) as { seq: number; hash: string } | undefined;
    const head = row ? { seq: Number(row.seq), hash: row.hash } : null;
    const e = build(head);
    if (e.tenantId !== tenantId || e.seq !== (head?.seq ?? 0) + 1) throw new Error('audit event does not extend the head');
    insert.run([
      e.tenantId,
      e.seq,
      e.id,
      e.type,
      e.actor.userId ?? null,
      e.actor.keyId ?? null,
      e.ip,
      e.userAgent,
      e.target?.type ?? null,
      e.target?.id ?? null,
      e.details === null ? null : JSON.stringify(e.details),
      e.createdAt,
      e.prevHash,
      e.hash,
    ]);
    upsertHead.run([tenantId, e.seq, e.hash]);
    return e;
  });

  return {
    async append(tenantId, build) {
      return appendTx.immediate(tenantId, build);
    },
    async list(tenantId, query) {
      const { where, params } = whereOf(tenantId, query);
      const events = (
        preparedStatement(db, `SELECT ${cols} FROM audit_events WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`).all([
          ...params,
          query.limit,
          query.offset,
        ]) as Row[]
      ).map(toEvent);
      const { n } = preparedStatement(db, `SELECT COUNT(*) AS n FROM audit_events WHERE ${where}`).get(params) as { n: number };
      return { events, total: Number(n) };
    },
    async range(tenantId, afterSeq, limit) {
      return (range.all([tenantId, afterSeq, limit]) as Row[]).map(toEvent);
    },
    async head(tenantId) {
      const row = getHead.get([tenantId]) as { seq: number; hash: string } | undefined;
      return row ? { seq: Number(row.seq), hash: row.hash } : null;
    },
  };
}
