import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { AuditActor, AuditEventRecord, AuditHead, AuditListQuery, AuditStore, AuditTarget } from '../ports/audit.js';
import { canonicalAuditTime } from '../storage-rules/audit-filter.js';
import { isoAt, systemClock, type Clock } from './clock.js';

/** Every kind of audit event. Add new kinds here (one place), keeping the `area.verb` form. */
export const auditEventTypes = [
  'user.signup',
  'auth.login',
  'auth.login_failed',
  'auth.refresh_reuse',
  'auth.revoke',
  'auth.step_up',
  'auth.step_up_failed',
  'break_glass.request',
  'break_glass.approve',
  'break_glass.deny',
  'break_glass.expire',
  // Ended early because the holder's role changed or they left the tenant.
  'break_glass.revoke',
  'tenant.create',
  'tenant.status_change',
  'member.add',
  'member.role_change',
  'member.invite',
  'member.invite_accept',
  'member.invite_decline',
  // Withdrawn by the tenant, or void at acceptance because its inviter may no longer grant its role.
  'member.invite_cancel',
  'member.remove',
  'api_key.create',
  'api_key.rotate',
  'api_key.revoke',
  'api_key.denied_ip',
  'user.identity_link',
  'memory.delete',
  // Many memories deleted in one portal call: the count and the selector (ids, filter or all).
  'memory.bulk_delete',
  'memory.settings_change',
  'knowledge.structure_publish',
  'knowledge.structure_activate',
  'knowledge.object_delete',
  'knowledge.settings_update',
  // Someone asked for an enrichment run from the portal (API-key triggers are the agent's own work).
  'knowledge.enrich_request',
  // A portal user ticked an onboarding step by hand (steps that tick themselves are not audited).
  'onboarding.complete',
  // The portal's privileged actions: a tenant data export, a retention change, and the job's purge.
  'portal.export',
  'retention.change',
  'retention.purge',
] as const;
export type AuditEventType = (typeof auditEventTypes)[number];

/** What a caller records; the service adds id, seq, time and the chain fields. */
export interface AuditInput {
  tenantId: string;
  type: AuditEventType;
  actor?: AuditActor;
  ip?: string | null;
  userAgent?: string | null;
  target?: AuditTarget | null;
  /** Flat facts about the event. Never put secrets here (passwords, tokens, key secrets). */
  details?: Record<string, unknown> | null;
}

export interface AuditVerification {
  ok: boolean;
  /** Events whose hash was checked. */
  checked: number;
  /** The seq where the chain first fails (a changed, missing or extra event), when not ok. */
  brokenAt?: number;
  reason?: string;
}

export interface AuditService {
  record(input: AuditInput): Promise<AuditEventRecord>;
  /** For events with no tenant (a failed sign-in with an unknown email): a structured log line only. */
  recordUnscoped(type: AuditEventType, facts: { ip?: string | null; userAgent?: string | null; details?: Record<string, unknown> }): void;
  /** Newest first, filtered when the query says so (type exact or `area.` prefix, actor, time bounds). */
  list(tenantId: string, query: AuditListQuery): Promise<{ events: AuditEventRecord[]; total: number }>;
  verify(tenantId: string): Promise<AuditVerification>;
}

export const GENESIS_HASH = '0'.repeat(64);

/** JSON with object keys sorted at every depth and `undefined` members dropped: one byte string per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The hash of an event: SHA-256 over the canonical form of every field but `hash` itself. */
export function hashAuditEvent(e: Omit<AuditEventRecord, 'hash'>): string {
  const material = canonicalJson({
    v: 1,
    tenant_id: e.tenantId,
    seq: e.seq,
    id: e.id,
    type: e.type,
    actor: { user_id: e.actor.userId ?? null, key_id: e.actor.keyId ?? null },
    ip: e.ip,
    user_agent: e.userAgent,
    target: e.target,
    details: e.details,
    created_at: e.createdAt,
    prev_hash: e.prevHash,
  });
  return createHash('sha256').update(material, 'utf8').digest('hex');
}

const VERIFY_PAGE = 1000;

export function createAuditService(deps: { audit: AuditStore; logger: Logger; clock?: Clock }): AuditService {
  const { audit, logger } = deps;
  const now = deps.clock ?? systemClock;

  return {
    async record(input) {
      // Normalise details through JSON once, so what is hashed is exactly what storage gives back.
      const details = input.details == null ? null : (JSON.parse(JSON.stringify(input.details)) as Record<string, unknown>);
      const actor: AuditActor = {};
      if (input.actor?.userId) actor.userId = input.actor.userId;
      if (input.actor?.keyId) actor.keyId = input.actor.keyId;
      const id = randomUUID();
      const createdAt = isoAt(now());
      return audit.append(input.tenantId, (head: AuditHead | null) => {
        const partial: Omit<AuditEventRecord, 'hash'> = {
          id,
          tenantId: input.tenantId,
          seq: (head?.seq ?? 0) + 1,
          type: input.type,
          actor,
          ip: input.ip ?? null,
          userAgent: input.userAgent ?? null,
          target: input.target ?? null,
          details,
          createdAt,
          prevHash: head?.hash ?? GENESIS_HASH,
        };
        return { ...partial, hash: hashAuditEvent(partial) };
      });
    },

    recordUnscoped(type, facts) {
      logger.warn(
        { audit: { type, ip: facts.ip ?? null, user_agent: facts.userAgent ?? null, ...(facts.details ?? {}) } },
        `audit ${type} (no tenant)`,
      );
    },

    list: (tenantId, query) =>
      audit.list(tenantId, {
        ...query,
        ...(query.from === undefined ? {} : { from: canonicalAuditTime(query.from) }),
        ...(query.to === undefined ? {} : { to: canonicalAuditTime(query.to) }),
      }),

    async verify(tenantId) {
      let expectedSeq = 1;
      let prevHash = GENESIS_HASH;
      let checked = 0;
      const broken = (brokenAt: number, reason: string): AuditVerification => ({ ok: false, checked, brokenAt, reason });
      for (;;) {
        const batch = await audit.range(tenantId, expectedSeq - 1, VERIFY_PAGE);
        for (const e of batch) {
          if (e.seq !== expectedSeq) return broken(expectedSeq, `event ${expectedSeq} is missing`);
          if (e.tenantId !== tenantId) return broken(e.seq, 'event belongs to another tenant');
          if (e.prevHash !== prevHash) return broken(e.seq, 'previous-hash link does not match');
          const { hash, ...rest } = e;
          if (hashAuditEvent(rest) !== hash) return broken(e.seq, 'event content does not match its hash');
          checked++;
          prevHash = hash;
          expectedSeq++;
        }
        if (batch.length < VERIFY_PAGE) break;
      }
      const head = await audit.head(tenantId);
      const lastSeq = expectedSeq - 1;
      if (!head) return lastSeq === 0 ? { ok: true, checked } : broken(1, 'events exist but the head is missing');
      if (head.seq > lastSeq) return broken(lastSeq + 1, `event ${lastSeq + 1} is missing (the head records ${head.seq})`);
      if (head.seq < lastSeq) return broken(head.seq + 1, `events after the head (seq ${head.seq})`);
      if (head.hash !== prevHash) return broken(head.seq, 'head does not match the last event');
      return { ok: true, checked };
    },
  };
}

/** Where a request came from, as recorded in audit events. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}
