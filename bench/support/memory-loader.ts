/**
 * Bench-only bulk loader: turns synthetic index documents into memories that exist exactly as the
 * consolidation pipeline would leave them — a row in the memory store at committed version 1 with its
 * version record, usage accounting, and the search index rows written in the same transaction — using
 * only the storage ports (`WriteQueue.enqueue`, `WriteQueue.peek`, `MemoryStore.commitConsolidation`),
 * never SQL.
 *
 * What it skips, and why: the pipeline's per-write work (injection screen, sensitivity, dedupe and
 * contradiction candidates, quality NLP, entity extraction, embedding). The derived state is fixed
 * (active, low sensitivity, not flagged, clear), the entities and vector are the document's own
 * (synthetic entities, vectors from whatever source the caller chose), and no subject keys are stored
 * (they only serve consolidation's candidate lookup, never search). Quotas are not checked.
 * Each accepted write is its own transaction (as in production); each batch is committed as one
 * consolidation plan (one transaction).
 */
import { createHash } from 'node:crypto';
import type { ApplyWriteOp, MemoryContent, MemoryStore } from '../../server/ports/memories.js';
import type { IndexedMemory } from '../../server/ports/search-index.js';
import type { WriteQueue } from '../../server/ports/write-queue.js';

export interface LoaderPorts {
  writeQueue: WriteQueue;
  memories: MemoryStore;
}

export interface LoadOptions {
  /** Writes accepted, then committed as one consolidation plan (default 2,000). */
  batch?: number;
  /** Called after each committed batch with the number of memories loaded so far. */
  onProgress?: (loaded: number) => void;
}

const UNLIMITED = { writes: null, storageBytes: null, memories: null } as const;

/** Deterministic RFC 4122-shaped id (version 4 layout) for memory `i` of tenant seed `seed`. */
export function benchMemoryId(seed: number, i: number): string {
  const h = createHash('sha1').update(`bench-memory:${seed}:${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Loads `docs` into `tenantId` (which must have nothing queued). Returns the number loaded.
 * `doc.createdAt` becomes the memory's acceptance time, so memories keep the corpus's timeline.
 */
export async function loadConsolidatedMemories(
  ports: LoaderPorts,
  tenantId: string,
  docs: Iterable<IndexedMemory>,
  options: LoadOptions = {},
): Promise<number> {
  const batchSize = options.batch ?? 2000;
  if ((await ports.writeQueue.pendingCount(tenantId)) !== 0)
    throw new Error(`tenant ${tenantId} has queued writes; the loader needs an idle tenant`);
  let loaded = 0;
  let batch: IndexedMemory[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const period = new Date().toISOString().slice(0, 7);
    const byId = new Map<string, IndexedMemory>();
    for (const d of batch) {
      const content: MemoryContent = {
        title: d.title,
        content: d.content,
        tags: d.tags,
        type: 'episodic',
        agentId: d.agentId,
        metadata: {},
        writerSensitivity: 'low',
      };
      const r = await ports.writeQueue.enqueue(tenantId, {
        kind: 'create',
        memoryId: d.memoryId,
        namespace: d.namespace,
        content,
        allowedNamespaces: null,
        idempotency: null,
        quota: { period, ...UNLIMITED },
        acceptedAt: d.createdAt,
      });
      if (r.kind !== 'accepted') throw new Error(`enqueue of ${d.memoryId} answered ${r.kind}`);
      byId.set(d.memoryId, d);
    }
    const queued = await ports.writeQueue.peek(tenantId, batch.length);
    if (queued.length !== batch.length || queued.some((w) => !byId.has(w.memoryId))) {
      throw new Error('the write queue holds writes the loader did not make (is a consolidation worker running?)');
    }
    const at = new Date().toISOString();
    const ops: ApplyWriteOp[] = queued.map((w) => ({
      kind: 'apply',
      writeId: w.id,
      memoryId: w.memoryId,
      namespace: w.namespace,
      version: w.version,
      snapshot: {
        change: 'create',
        title: w.content.title,
        content: w.content.content,
        tags: w.content.tags,
        type: w.content.type,
        agentId: w.content.agentId,
        metadata: w.content.metadata,
        sensitivity: 'low',
        status: 'active',
        rolledBackTo: null,
        createdAt: at,
      },
      derived: {
        status: 'active',
        sensitivity: 'low',
        sensitivityReasons: [],
        injectionFlagged: false,
        injectionScore: 0,
        injectionPatterns: [],
        quality: byId.get(w.memoryId)!.quality,
        contradictionStatus: 'clear',
        contradictionPolicy: null,
        conflictsWith: [],
        supersededBy: null,
        mergedInto: null,
        fingerprint: createHash('sha256').update(w.content.content.trim().toLowerCase()).digest('hex').slice(0, 32),
        subjects: [],
      },
    }));
    await ports.memories.commitConsolidation(tenantId, { ops, indexUpserts: batch, indexRemovals: [], at });
    loaded += batch.length;
    batch = [];
    options.onProgress?.(loaded);
  };
  for (const d of docs) {
    batch.push(d);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return loaded;
}
