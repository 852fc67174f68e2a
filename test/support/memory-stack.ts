import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { EmbeddedDatabase } from '../../adapters/embedded/database.js';
import { loadConfig } from '../../server/config.js';
import { buildServices, embedderFor, type Services } from '../../server/container.js';
import { createLogger } from '../../server/logger.js';
import type { MemoryStore } from '../../server/ports/memories.js';
import type { SearchIndex } from '../../server/ports/search-index.js';
import type { WriteQueue } from '../../server/ports/write-queue.js';
import { createEmbeddedPorts } from '../../server/profiles/embedded.js';
import type { ProfileStorage } from '../../server/profiles/profile-storage.js';
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from '../../server/schemas/plan-limits.js';
import type { ConsolidationDeps, ConsolidationService } from '../../server/services/memories/consolidation.js';
import type { MemoryCaller, MemoryService } from '../../server/services/memories/memory-service.js';
import type { UsageService } from '../../server/services/usage.js';

export interface MemoryStack {
  dir: string;
  db: EmbeddedDatabase;
  memories: MemoryStore;
  queue: WriteQueue;
  usage: UsageService;
  service: MemoryService;
  consolidation: ConsolidationService;
  index: SearchIndex;
  caller(tenantId: string, namespaces?: string[] | null): MemoryCaller;
  /** Memory ids the keyword index finds for a query in the tenant (default filters). */
  search(tenantId: string, text: string): Promise<string[]>;
  /** A second consolidation service on its own connection to the same file (another worker). */
  secondWorker(): ConsolidationService;
  close(): Promise<void>;
}

export interface MemoryStackOptions {
  /** Plan limits by plan name; default the configuration's defaults. */
  limits?: PlanLimits;
  clock?: () => number;
  /** The plan whose limits the stack's tenants get; default `enterprise` (unlimited). */
  plan?: string;
  contentMaxBytes?: number;
  consolidation?: Pick<ConsolidationDeps, 'analyzer' | 'contradictionDetector' | 'batchSize'>;
}

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

/**
 * The embedded memory stack over a fresh data directory, without HTTP: the embedded profile's ports and
 * the container's `buildServices`, so tests run exactly the production wiring. Job workers do not
 * run (tests drain themselves); consolidation analyses in line (`CONSOLIDATION_THREADS=0`).
 */
export function createMemoryStack(opts: MemoryStackOptions = {}): MemoryStack {
  const dir = mkdtempSync(path.join(tmpdir(), 'memory-stack-'));
  const loaded = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dir,
    EMBEDDINGS_PROVIDER: 'hash',
    CONSOLIDATION_THREADS: '0',
    MEMORY_CONTENT_MAX_BYTES: String(opts.contentMaxBytes ?? 64 * 1024),
  });
  // The stack's tenants have no tenant record, so they are on the fallback plan (`free`): it gets the
  // limits of the plan the test asked for.
  const limits = opts.limits ?? DEFAULT_PLAN_LIMITS;
  const plan = opts.plan ?? 'enterprise';
  const config = { ...loaded, PLAN_LIMITS: { ...limits, free: limits[plan] ?? limits.free! } };
  const embedder = embedderFor(config, false);
  const embedding = { model: embedder.model, dimension: embedder.dimension };
  const built: Services[] = [];
  const open = () => {
    const ports = createEmbeddedPorts(config, quiet, embedding);
    const services = buildServices(config, quiet, ports, {
      embedder,
      workers: false,
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.consolidation ? { consolidation: opts.consolidation } : {}),
    });
    built.push(services);
    return { services, db: embeddedDb(ports) };
  };
  const { services: main, db } = open();
  return {
    dir,
    db,
    memories: main.ports.memories,
    queue: main.ports.writeQueue,
    usage: main.usage,
    service: main.memories,
    consolidation: main.consolidation,
    index: main.ports.searchIndex,
    caller: (tenantId, namespaces = null) => ({ tenantId, namespaces }),
    async search(tenantId, text) {
      const r = await main.ports.searchIndex.search(tenantId, {
        text,
        vector: null,
        mode: 'hybrid',
        limit: 50,
        filters: { namespaces: null },
      });
      return r.hits.map((h) => h.memoryId);
    },
    secondWorker: () => open().services.consolidation,
    async close() {
      await Promise.all(built.map((s) => s.close()));
      await embedder.close?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The embedded profile's database, which its job store names (the only place the profile exposes it). */
function embeddedDb(ports: ProfileStorage): EmbeddedDatabase {
  if (ports.jobStore.profile !== 'embedded') throw new Error('the memory stack runs on the embedded profile');
  return ports.jobStore.db;
}
