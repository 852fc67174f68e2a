import { MongoServerError, type Collection, type Db, type Filter } from 'mongodb';
import type { AuditEventRecord, AuditHead, AuditStore } from '../../server/ports/audit.js';
import { auditTypeRange, type AuditFilter } from '../../server/storage-rules/audit-filter.js';

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

interface AuditDoc {
  _id: string;
  tenantId: string;
  seq: number;
  type: string;
  actor: { userId?: string; keyId?: string };
  ip: string | null;
  userAgent: string | null;
  target: { type: string; id: string } | null;
  /** Stored as the JSON text that was hashed, so BSON type changes can never alter it. */
  details: string | null;
  createdAt: string;
  prevHash: string;
  hash: string;
}
interface HeadDoc {
  _id: string;
  seq: number;
  hash: string;
}

const toEvent = (doc: AuditDoc): AuditEventRecord => ({
  id: doc._id,
  tenantId: doc.tenantId,
  seq: doc.seq,
  type: doc.type,
  actor: { ...doc.actor },
  ip: doc.ip,
  userAgent: doc.userAgent,
  target: doc.target,
  details: doc.details === null ? null : (JSON.parse(doc.details) as Record<string, unknown>),
  createdAt: doc.createdAt,
  prevHash: doc.prevHash,
  hash: doc.hash,
});

/** The query of a filtered list (the rule: `storage-rules/audit-filter.ts`). */
function filterOf(tenantId: string, query: AuditFilter): Filter<AuditDoc> {
  const filter: Filter<AuditDoc> = { tenantId };
  if (query.type !== undefined) {
    const range = auditTypeRange(query.type);
    filter.type = 'eq' in range ? range.eq : { $gte: range.gte, $lt: range.lt };
  }
  if (query.actor !== undefined) filter.$or = [{ 'actor.userId': query.actor }, { 'actor.keyId': query.actor }];
  if (query.from !== undefined || query.to !== undefined) {
    filter.createdAt = {
      ...(query.from === undefined ? {} : { $gte: query.from }),
      ...(query.to === undefined ? {} : { $lte: query.to }),
    };
  }
  return filter;
}

/**
 * The audit log in MongoDB. The unique (tenantId, seq) index is what keeps the chain from forking:
 * of two appends that read the same head, one insert fails and that append retries on the new head.
 * The head document only moves forward; if a process died between inserting an event and moving
 * the head, the next append rolls forward from the newest event.
 */
export async function createMongoAuditStore(db: Db): Promise<AuditStore> {
  const events: Collection<AuditDoc> = db.collection<AuditDoc>('audit_events');
  const heads: Collection<HeadDoc> = db.collection<HeadDoc>('audit_heads');
  await events.createIndex({ tenantId: 1, seq: 1 }, { unique: true, name: 'audit_events_chain' });
  // The portal's filtered audit page (type exact or prefix, actor), newest first.
  await events.createIndex({ tenantId: 1, type: 1, seq: -1 }, { name: 'audit_events_type' });
  await events.createIndex({ tenantId: 1, 'actor.userId': 1, seq: -1 }, { name: 'audit_events_actor_user' });
  await events.createIndex({ tenantId: 1, 'actor.keyId': 1, seq: -1 }, { name: 'audit_events_actor_key' });

  async function currentHead(tenantId: string): Promise<AuditHead | null> {
    const [head, last] = await Promise.all([
      heads.findOne({ _id: tenantId }),
      events
        .find({ tenantId }, { projection: { seq: 1, hash: 1 } })
        .sort({ seq: -1 })
        .limit(1)
        .next(),
    ]);
    const candidates = [head, last].filter((x): x is NonNullable<typeof x> => !!x);
    if (candidates.length === 0) return null;
    const best = candidates.reduce((a, b) => (b.seq > a.seq ? b : a));
    return { seq: best.seq, hash: best.hash };
  }

  return {
    async append(tenantId, build) {
      for (let attempt = 0; attempt < 20; attempt++) {
        const e = build(await currentHead(tenantId));
        try {
          await events.insertOne({
            _id: e.id,
            tenantId,
            seq: e.seq,
            type: e.type,
            actor: { ...e.actor },
            ip: e.ip,
            userAgent: e.userAgent,
            target: e.target,
            details: e.details === null ? null : JSON.stringify(e.details),
            createdAt: e.createdAt,
            prevHash: e.prevHash,
            hash: e.hash,
          });
        } catch (err) {
          if (isDuplicateKey(err)) continue; // lost the race for this seq: rebuild on the new head
          throw err;
        }
        try {
          await heads.updateOne({ _id: tenantId, seq: { $lt: e.seq } }, { $set: { seq: e.seq, hash: e.hash } }, { upsert: true });
        } catch (err) {
          if (!isDuplicateKey(err)) throw err; // the head is already past this seq
        }
        return e;
      }
      throw new Error(`audit append for tenant ${tenantId} kept losing races`);
    },
    async list(tenantId, query) {
      const filter = filterOf(tenantId, query);
      const [docs, total] = await Promise.all([
        events.find(filter).sort({ seq: -1 }).skip(query.offset).limit(query.limit).toArray(),
        events.countDocuments(filter),
      ]);
      return { events: docs.map(toEvent), total };
    },
    async range(tenantId, afterSeq, limit) {
      return (
        await events
          .find({ tenantId, seq: { $gt: afterSeq } })
          .sort({ seq: 1 })
          .limit(limit)
          .toArray()
      ).map(toEvent);
    },
    async head(tenantId) {
      const h = await heads.findOne({ _id: tenantId });
      return h ? { seq: h.seq, hash: h.hash } : null;
    },
  };
}
