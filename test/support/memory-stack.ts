import { createEmbeddedAuditStore } from '../../adapters/embedded/audit.js';
import { createAuditService } from '../../server/services/audit.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { createEmbeddedMemoryStore } from '../../adapters/embedded/memory-store.js';
import { EmbeddedSearchIndex } from '../../adapters/embedded/search-index.js';
import { deleteIndexRows, writeIndexRows } from '../../adapters/embedded/search/rows.js';
import { createEmbeddedUsageStore } from '../../adapters/embedded/usage-store.js';
import { createEmbeddedWriteQueue } from '../../adapters/embedded/write-queue.js';
import { createLogger } from '../../server/logger.js';
import type { MemoryStore } from '../../server/ports/memories.js';
import type { WriteQueue } from '../../server/ports/write-queue.js';
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from '../../server/schemas/plan-limits.js';
import { createConsolidationService, type ConsolidationDeps, type ConsolidationService } from '../../server/services/memories/consolidation.js';
import { createMemoryService, type MemoryCaller, type MemoryService } from '../../server/services/memories/memory-service.js';
import { createUsageService, type UsageService } from '../../server/services/usage.js';

export interface MemoryStack {
  dir: string;
  db: EmbeddedDatabase;
  memories: MemoryStore;
  queue: WriteQueue;
  usage: UsageService;
  service: MemoryService;
  consolidation: ConsolidationService;
  index: EmbeddedSearchIndex;
  caller(tenantId: string, namespaces?: string[] | null): MemoryCaller;
  /** Memory ids the keyword index finds for a query in the tenant (default filters). */
  search(tenantId: string, text: string): Promise<string[]>;
  /** A second consolidation service on its own connection to the same file (another worker). */
  secondWorker(): ConsolidationService;
  close(): void;
}

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

/** The embedded memory stack over a fresh data directory, wired as the container does (without HTTP). */
export function createMemoryStack(
  opts: { limits?: PlanLimits; clock?: () => number; plan?: string; contentMaxBytes?: number; consolidation?: Partial<ConsolidationDeps> } = {},
): MemoryStack {
  const dir = mkdtempSync(path.join(tmpdir(), 'memory-stack-'));
  const dbs: EmbeddedDatabase[] = [];
  const open = () => {
    const db = openEmbeddedDatabase(dir);
    dbs.push(db);
    const memories = createEmbeddedMemoryStore(db, {
      upsert: (t, doc) => writeIndexRows(db, t, doc),
      remove: (t, id) => void deleteIndexRows(db, t, id),
    });
    return { db, memories, queue: createEmbeddedWriteQueue(db) };
  };
  const main = open();
  const clock = opts.clock ?? Date.now;
  const usage = createUsageService({
    store: createEmbeddedUsageStore(main.db),
    limits: opts.limits ?? DEFAULT_PLAN_LIMITS,
    planName: async () => opts.plan ?? 'enterprise',
    clock,
  });
  const audit = createAuditService({ audit: createEmbeddedAuditStore(main.db), logger: quiet, clock });
  const service = createMemoryService({ memories: main.memories, queue: main.queue, usage, clock, contentMaxBytes: opts.contentMaxBytes ?? 64 * 1024, audit });
  const consolidation = createConsolidationService({ memories: main.memories, queue: main.queue, clock, logger: quiet, ...opts.consolidation });
  const index = new EmbeddedSearchIndex(main.db, { model: 'none', dimension: 8 });
  return {
    dir,
    db: main.db,
    memories: main.memories,
    queue: main.queue,
    usage,
    service,
    consolidation,
    index,
    caller: (tenantId, namespaces = null) => ({ tenantId, namespaces }),
    async search(tenantId, text) {
      const r = await index.search(tenantId, { text, vector: null, mode: 'hybrid', limit: 50, filters: { namespaces: null } });
      return r.hits.map((h) => h.memoryId);
    },
    secondWorker() {
      const other = open();
      return createConsolidationService({ memories: other.memories, queue: other.queue, clock, logger: quiet, ...opts.consolidation });
    },
    close() {
      for (const db of dbs) if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
