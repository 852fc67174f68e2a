import type { MemoryContent } from '../../server/ports/memories.js';
import type { EnqueueRequest, EnqueueResult, QueuedWrite, WriteKind, WriteQueue, WriteReceipt } from '../../server/ports/write-queue.js';
import type { NewMemory } from '../../server/storage-rules/new-memory.js';
import { decideWrite, type MemoryHead, type VersionContent, type WriteSnapshot } from '../../server/storage-rules/write-acceptance.js';
import { BUSY_TIMEOUT_MS, type EmbeddedDatabase } from './database.js';
import { MEMORY_COLUMNS, MEMORY_PLACEHOLDERS, type RawMemoryRow } from './memory-rows.js';

interface WriteRow {
  id: number;
  tenant_id: string;
  memory_id: string;
  namespace: string;
  version: number;
  kind: WriteKind;
  content: string;
  rolled_back_to: number | null;
  accepted_at: string;
}

interface HeadRow {
  namespace: string;
  head_version: number;
  pending_count: number;
  size_bytes: number;
  merged_into: string | null;
}

/** A new memory row's values, MEMORY_COLUMNS in order (the tuple type checks count and types). */
function newMemoryColumns(m: NewMemory): RawMemoryRow {
  return [
    m.id,
    m.tenantId,
    m.namespace,
    m.agentId,
    m.type,
    m.title,
    m.content,
    JSON.stringify(m.tags),
    JSON.stringify(m.metadata),
    m.writerSensitivity,
    m.sensitivity,
    JSON.stringify(m.sensitivityReasons),
    m.status,
    m.version,
    m.committedVersion,
    m.pendingCount,
    m.contradictionStatus,
    m.contradictionPolicy,
    JSON.stringify(m.conflictsWith),
    m.supersededBy,
    m.mergedInto,
    m.injectionFlagged ? 1 : 0,
    m.injectionScore,
    JSON.stringify(m.injectionPatterns),
    m.quality,
    m.fingerprint,
    m.sizeBytes,
    m.createdAt,
    m.updatedAt,
  ];
}

export interface EmbeddedWriteQueueOptions {
  /** How long a group waits for another connection's write lock before its writes fail (default: the connection's busy timeout). */
  lockTimeoutMs?: number;
}

/**
 * The write queue of the embedded profile. `enqueue` is one `BEGIN IMMEDIATE` transaction (shared by a
 * group of writes) covering the idempotency record, the quota check, the memory row, the queued write
 * and the usage counters; what each write does is `decideWrite`'s, this file only reads and applies.
 */
export function createEmbeddedWriteQueue(db: EmbeddedDatabase, options: EmbeddedWriteQueueOptions = {}): WriteQueue {
  const lockTimeoutMs = options.lockTimeoutMs ?? BUSY_TIMEOUT_MS;
  const idem = db.prepare('SELECT request_hash, response, expires_at FROM idempotency_keys WHERE tenant_id = ? AND key = ?');
  const putIdem = db.prepare(`INSERT INTO idempotency_keys (tenant_id, key, request_hash, response, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (tenant_id, key) DO UPDATE SET request_hash = excluded.request_hash, response = excluded.response,
      created_at = excluded.created_at, expires_at = excluded.expires_at`);
  const writesUsed = db.prepare('SELECT writes FROM usage_periods WHERE tenant_id = ? AND period = ?');
  const countWrites = db.prepare(`INSERT INTO usage_periods (tenant_id, period, writes) VALUES (?, ?, ?)
    ON CONFLICT (tenant_id, period) DO UPDATE SET writes = writes + excluded.writes`);
  const totals = db.prepare('SELECT memory_count, storage_bytes FROM usage_totals WHERE tenant_id = ?');
  const adjustTotals = db.prepare(`INSERT INTO usage_totals (tenant_id, memory_count, storage_bytes) VALUES (?, ?, ?)
    ON CONFLICT (tenant_id) DO UPDATE SET memory_count = memory_count + excluded.memory_count, storage_bytes = storage_bytes + excluded.storage_bytes`);
  const head = db.prepare(
    'SELECT namespace, head_version, pending_count, size_bytes, merged_into FROM memories WHERE tenant_id = ? AND id = ?',
  );
  const target = db.prepare(`SELECT title, content, tags, type, agent_id, metadata, sensitivity FROM memory_versions
    WHERE tenant_id = ? AND memory_id = ? AND version = ?`);
  const insertMemory = db.prepare(`INSERT INTO memories (${MEMORY_COLUMNS}) VALUES (${MEMORY_PLACEHOLDERS})`);
  const updateHead = db.prepare(`UPDATE memories SET agent_id = ?, type = ?, title = ?, content = ?, tags = ?, metadata = ?,
      writer_sensitivity = ?, sensitivity = ?, head_version = ?, pending_count = pending_count + 1, size_bytes = ?, updated_at = ?
    WHERE tenant_id = ? AND id = ? AND head_version = ?`);
  const insertWrite =
    db.prepare(`INSERT INTO memory_writes (tenant_id, memory_id, namespace, version, kind, content, rolled_back_to, accepted_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const peek = db.prepare(`SELECT id, tenant_id, memory_id, namespace, version, kind, content, rolled_back_to, accepted_at
    FROM memory_writes WHERE tenant_id = ? ORDER BY id LIMIT ?`);
  const tenants = db.prepare('SELECT tenant_id, MIN(id) AS first FROM memory_writes GROUP BY tenant_id ORDER BY first LIMIT ?');
  const pending = db.prepare('SELECT COUNT(*) AS n FROM memory_writes WHERE tenant_id = ?');

  /**
   * What a group has added so far to one tenant's counters: writes per period, memories and bytes. The
   * counters are written once per tenant when the group ends; quota checks inside the group see the
   * stored value (read at most once per group) plus this tally.
   */
  interface Tally {
    writes: Map<string, { stored?: number; added: number }>;
    memories: number;
    bytes: number;
    storedTotals?: { memory_count: number; storage_bytes: number };
    /** The tenant's store as the group's writes see it (made once per tenant and group). */
    snapshot?: WriteSnapshot;
  }
  const tallyOf = (tallies: Map<string, Tally>, tenantId: string): Tally => {
    let t = tallies.get(tenantId);
    if (!t) tallies.set(tenantId, (t = { writes: new Map(), memories: 0, bytes: 0 }));
    return t;
  };
  const periodOf = (t: Tally, period: string) => {
    let p = t.writes.get(period);
    if (!p) t.writes.set(period, (p = { added: 0 }));
    return p;
  };
  const writesSoFar = (tenantId: string, t: Tally, period: string) => {
    const p = periodOf(t, period);
    p.stored ??= (writesUsed.get([tenantId, period]) as { writes: number } | undefined)?.writes ?? 0;
    return p.stored + p.added;
  };
  const totalsSoFar = (tenantId: string, t: Tally) => {
    t.storedTotals ??= (totals.get([tenantId]) as { memory_count: number; storage_bytes: number } | undefined) ?? {
      memory_count: 0,
      storage_bytes: 0,
    };
    return { memoryCount: t.storedTotals.memory_count + t.memories, storageBytes: t.storedTotals.storage_bytes + t.bytes };
  };
  const writeTallies = (tallies: Map<string, Tally>) => {
    for (const [tenantId, t] of tallies) {
      for (const [period, p] of t.writes) if (p.added > 0) countWrites.run([tenantId, period, p.added]);
      if (t.memories !== 0 || t.bytes !== 0) adjustTotals.run([tenantId, t.memories, t.bytes]);
    }
  };

  /** The store as one write of the group sees it: stored rows plus what the group added so far. */
  const snapshotOf = (tenantId: string, tally: Tally): WriteSnapshot => ({
    idempotency(key) {
      const seen = idem.get([tenantId, key]) as { request_hash: string; response: string; expires_at: string } | undefined;
      return seen
        ? { requestHash: seen.request_hash, expiresAt: seen.expires_at, receipt: () => JSON.parse(seen.response) as WriteReceipt }
        : null;
    },
    writesUsed: (period) => writesSoFar(tenantId, tally, period),
    totals: () => totalsSoFar(tenantId, tally),
    head(memoryId): MemoryHead | null {
      const row = head.get([tenantId, memoryId]) as HeadRow | undefined;
      return row
        ? {
            namespace: row.namespace,
            headVersion: row.head_version,
            pendingCount: row.pending_count,
            sizeBytes: row.size_bytes,
            mergedInto: row.merged_into,
          }
        : null;
    },
    versionContent(memoryId, version): VersionContent | null {
      const t = target.get([tenantId, memoryId, version]) as
        | {
            title: string;
            content: string;
            tags: string;
            type: VersionContent['type'];
            agent_id: string | null;
            metadata: string;
            sensitivity: VersionContent['sensitivity'];
          }
        | undefined;
      if (!t) return null;
      return {
        title: t.title,
        content: t.content,
        tags: JSON.parse(t.tags) as string[],
        type: t.type,
        agentId: t.agent_id,
        metadata: JSON.parse(t.metadata) as VersionContent['metadata'],
        sensitivity: t.sensitivity,
      };
    },
  });

  /** Decides one write (`decideWrite`) and applies its effects to the group's transaction and tally. */
  const applyOne = (tenantId: string, req: EnqueueRequest, tally: Tally): EnqueueResult => {
    const decision = decideWrite(tenantId, req, (tally.snapshot ??= snapshotOf(tenantId, tally)));
    if (decision.kind === 'answer') return decision.result;
    const w = decision.write;
    const c = w.queued.content;
    if (w.head.kind === 'insert') {
      insertMemory.run(newMemoryColumns(w.head.memory));
    } else {
      const moved = updateHead.run([
        c.agentId,
        c.type,
        c.title,
        c.content,
        JSON.stringify(c.tags),
        JSON.stringify(c.metadata),
        c.writerSensitivity,
        w.sensitivity,
        w.queued.version,
        w.head.sizeBytes,
        w.queued.acceptedAt,
        tenantId,
        w.queued.memoryId,
        w.head.fromVersion,
      ]);
      // Inside the group's transaction the head read above cannot have moved; a miss is a bug, not a race.
      if (moved.changes !== 1)
        throw new Error(`memory ${w.queued.memoryId} moved from version ${w.head.fromVersion} inside its own transaction`);
    }
    const q = w.queued;
    insertWrite.run([tenantId, q.memoryId, q.namespace, q.version, q.kind, JSON.stringify(c), q.rolledBackTo, q.acceptedAt]);
    const i = w.idempotency;
    if (i) putIdem.run([tenantId, i.key, i.requestHash, JSON.stringify(i.receipt), i.createdAt, i.expiresAt]);
    // Last, after every statement of this write succeeded: a failed write leaves the tally untouched.
    periodOf(tally, w.usage.period).added += 1;
    tally.memories += w.usage.memories;
    tally.bytes += w.usage.bytes;
    return { kind: 'accepted', receipt: w.receipt };
  };

  /**
   * Group commit: writes that arrive while a commit is being prepared share ONE `BEGIN IMMEDIATE`
   * transaction, applied in arrival order, and every caller is answered only after that transaction
   * committed. Same durability as one transaction per write, a fraction of the locking and commit cost
   * under concurrency. Usage counters are written once per tenant per group.
   *
   * Another connection may hold the file's write lock: the other process of `serve --processes 2`, or a
   * `tenant-memory worker` committing a consolidated batch. SQLite's busy handler would wait for it by
   * sleeping (1, 2, 5, 10… ms) on this thread, and nothing else in the process would run meanwhile: no
   * request parsed, no read answered. So the group asks for the lock without waiting and, when it is
   * taken, comes back a millisecond later, while new writes join the waiting group; only after
   * `lockTimeoutMs` of that do its writes fail, as they would in the busy handler.
   *
   * A write that throws (not a refusal such as a quota: an unexpected database error) must not take
   * the others down. The group first runs without per-write savepoints (two statements fewer per
   * write); if anything throws, that transaction rolls back whole and the group runs again with a
   * savepoint around each write, so only the failing write is rejected.
   */
  interface Waiting {
    tenantId: string;
    request: EnqueueRequest;
    resolve: (r: EnqueueResult) => void;
    reject: (e: unknown) => void;
  }
  type Outcome = { ok: true; result: EnqueueResult } | { ok: false; error: unknown };
  let waiting: Waiting[] = [];
  let scheduled = false;
  /** When the waiting group first found the write lock taken (ms), or null. */
  let lockedOutSince: number | null = null;
  const MAX_GROUP = 256;
  const savepoint = db.prepare('SAVEPOINT w');
  const release = db.prepare('RELEASE w');
  const rollbackTo = db.prepare('ROLLBACK TO w');
  const applyGroup = (group: Waiting[], isolate: boolean): Outcome[] => {
    const out: Outcome[] = [];
    const tallies = new Map<string, Tally>();
    for (const w of group) {
      const tally = tallyOf(tallies, w.tenantId);
      if (!isolate) {
        out.push({ ok: true, result: applyOne(w.tenantId, w.request, tally) });
        continue;
      }
      savepoint.run([]);
      try {
        out.push({ ok: true, result: applyOne(w.tenantId, w.request, tally) });
        release.run([]);
      } catch (error) {
        rollbackTo.run([]);
        release.run([]);
        out.push({ ok: false, error });
      }
    }
    writeTallies(tallies);
    return out;
  };
  /** `BEGIN IMMEDIATE` without waiting: false when another connection holds the write lock. */
  const lockWithoutWaiting = (): boolean => {
    // A prepared PRAGMA takes effect when prepared, not when run: these must be executed as text.
    db.exec('PRAGMA busy_timeout = 0');
    try {
      db.exec('BEGIN IMMEDIATE');
      return true;
    } catch (error) {
      if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return false;
      throw error;
    } finally {
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  };
  /** The group in the transaction `lockWithoutWaiting` began. */
  const commitGroup = (group: Waiting[], isolate: boolean): Outcome[] => {
    try {
      const out = applyGroup(group, isolate);
      db.exec('COMMIT');
      return out;
    } catch (error) {
      // SQLite may have rolled back already (some errors end the transaction); the first error is what matters.
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  };
  const schedule = (delayMs: number) => {
    scheduled = true;
    if (delayMs > 0) setTimeout(flush, delayMs);
    else setImmediate(flush);
  };
  /** Commits one group (the oldest MAX_GROUP waiting writes); another flush follows for the rest. */
  const flush = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    let locked: boolean;
    try {
      locked = lockWithoutWaiting();
    } catch (error) {
      lockedOutSince = null;
      for (const w of waiting.splice(0)) w.reject(error);
      return;
    }
    if (!locked) {
      const now = Date.now();
      lockedOutSince ??= now;
      if (now - lockedOutSince < lockTimeoutMs) return schedule(1);
      // Waited as long as SQLite's busy handler would have: fail these writes as it would.
      lockedOutSince = null;
      const error = Object.assign(new Error(`database is locked: another connection held the write lock for over ${lockTimeoutMs} ms`), {
        code: 'SQLITE_BUSY',
      });
      for (const w of waiting.splice(0)) w.reject(error);
      return;
    }
    lockedOutSince = null;
    const group = waiting.length > MAX_GROUP ? waiting.splice(0, MAX_GROUP) : waiting;
    if (group === waiting) waiting = [];
    if (waiting.length > 0) schedule(0);
    let outcomes: Outcome[];
    try {
      outcomes = commitGroup(group, false);
    } catch {
      // Replayed with a savepoint per write. Should another connection have taken the lock in between,
      // the group goes back to the head of the queue (order kept) rather than waiting in the busy handler.
      let relocked: boolean;
      try {
        relocked = lockWithoutWaiting();
      } catch (error) {
        for (const w of group) w.reject(error);
        return;
      }
      if (!relocked) {
        waiting = [...group, ...waiting];
        if (!scheduled) schedule(1);
        return;
      }
      try {
        outcomes = commitGroup(group, true);
      } catch (error) {
        for (const w of group) w.reject(error);
        return;
      }
    }
    outcomes.forEach((o, i) => (o.ok ? group[i]!.resolve(o.result) : group[i]!.reject(o.error)));
  };

  return {
    enqueue(tenantId, request) {
      return new Promise<EnqueueResult>((resolve, reject) => {
        waiting.push({ tenantId, request, resolve, reject });
        if (!scheduled) schedule(0);
      });
    },
    async peek(tenantId, limit) {
      return (peek.all([tenantId, limit]) as WriteRow[]).map((r): QueuedWrite => ({
        id: r.id,
        tenantId: r.tenant_id,
        memoryId: r.memory_id,
        namespace: r.namespace,
        version: r.version,
        kind: r.kind,
        content: JSON.parse(r.content) as MemoryContent,
        rolledBackTo: r.rolled_back_to,
        acceptedAt: r.accepted_at,
      }));
    },
    async tenantsWithPending(limit) {
      return (tenants.all([limit]) as { tenant_id: string }[]).map((r) => r.tenant_id);
    },
    async pendingCount(tenantId) {
      return (pending.get([tenantId]) as { n: number }).n;
    },
  };
}
