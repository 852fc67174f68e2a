/**
 * Consolidation throughput on the embedded profile, embeddings excluded (no embedder configured):
 * queued writes consolidated per second through the whole pipeline (injection screening, sensitivity,
 * dedupe, contradiction handling, commit with the keyword index rows), in batches of one transaction.
 *
 *   npx tsx bench/consolidation.ts [--writes 20000] [--tenants 4] [--updates 0.2] [--json bench/results/consolidation.json]
 *
 * Writes are queued first (through the memory service, as the API does), then one worker drains every
 * tenant. A share of the writes (`--updates`) are updates of earlier memories. Prints a table and writes
 * JSON (bench/results/ is gitignored). Target: ≥ 1,000 memories/s.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.js';
import { createContainer } from '../server/container.js';
import { createLogger } from '../server/logger.js';
import { extractEntities } from '../server/services/retrieval/entities.js';
import { createConsolidationService } from '../server/services/memories/consolidation.js';
import { HashingEmbedder } from '../adapters/embeddings/hashing.js';
import { qualityScore } from '../server/services/consolidation/quality.js';
import { quickQualityScore } from '../server/services/memories/quick-quality.js';
import { generateMemories, rng } from './memory-data.js';

const { values: args } = parseArgs({
  options: {
    writes: { type: 'string', default: '20000' },
    tenants: { type: 'string', default: '4' },
    updates: { type: 'string', default: '0.2' },
    json: { type: 'string', default: 'bench/results/consolidation.json' },
    /** Also extract entities for the graph channel (the retrieval layer's addition). */
    entities: { type: 'boolean', default: false },
    /** Also embed with the (cheap, non-semantic) hashing embedder, to see the vector write cost. */
    embed: { type: 'boolean', default: false },
    /** Quality scorer: `fast` (default, as the service is configured by default) or `nlp`. */
    quality: { type: 'string', default: 'fast' },
  },
});
const WRITES = Number(args.writes);
const TENANTS = Number(args.tenants);
const UPDATES = Number(args.updates);
const TARGET = 1000;

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-consolidation-'));
  const unlimited = JSON.stringify({ free: { writes: null, reads: null, searches: null, storage_bytes: null } });
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', EMBEDDINGS_PROVIDER: 'hash', WORKER_MODE: 'external', PLAN_LIMITS: unlimited, NODE_ENV: 'production' });
  const devNull = new Writable({ write: (_c, _e, cb) => cb() });
  const services = await createContainer(config, createLogger('warn', devNull));
  try {
    const tenants = Array.from({ length: TENANTS }, () => randomUUID());
    const data = generateMemories(WRITES, 7);
    const r = rng(11);
    const ids: string[][] = tenants.map(() => []);
    // Queue the writes as concurrent API requests would (32 in flight, so group commit applies).
    const t0 = performance.now();
    let nextWrite = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (nextWrite < WRITES) {
          const i = nextWrite++;
          const t = i % TENANTS;
          const caller = { tenantId: tenants[t]!, namespaces: null };
          const m = data[i]!;
          const own = ids[t]!;
          const body = { content: m.content, title: m.title, tags: m.tags };
          if (own.length > 10 && r() < UPDATES) {
            const id = own[Math.floor(r() * own.length)]!;
            try {
              await services.memories.update(caller, id, body);
            } catch {
              // merged duplicates refuse updates (409); count them as a create instead
              own.push((await services.memories.create(caller, body)).memoryId);
            }
          } else {
            own.push((await services.memories.create(caller, body)).memoryId);
          }
        }
      }),
    );
    const enqueueMs = performance.now() - t0;

    // The pipeline as this issue defines it: no embedder (embeddings excluded) and, unless asked, no
    // entity extraction (the retrieval layer adds both in the container).
    const consolidation = createConsolidationService({
      memories: services.ports.memories,
      queue: services.ports.writeQueue,
      clock: Date.now,
      logger: services.logger,
      embedder: args.embed ? new HashingEmbedder(256) : null,
      extractEntities: args.entities ? extractEntities : null,
      quality: args.quality === 'nlp' ? qualityScore : quickQualityScore,
    });
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    let applied = 0;
    let batches = 0;
    for (const tenant of tenants) {
      const res = await consolidation.drainTenant(tenant);
      applied += res.applied;
      batches += res.batches;
    }
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const perSecond = Math.round((applied / ms) * 1000);
    const perCpuSecond = Math.round((applied / cpuMs) * 1000);

    let superseded = 0;
    let merged = 0;
    let high = 0;
    for (const tenant of tenants) {
      const caller = { tenantId: tenant, namespaces: null };
      superseded += (await services.memories.list(caller, { status: 'superseded', limit: 1, offset: 0 })).total;
      merged += (await services.memories.list(caller, { status: 'archived', limit: 1, offset: 0 })).total;
      high += (await services.memories.list(caller, { sensitivity: 'high', limit: 1, offset: 0 })).total;
    }
    // How closely the fast quality estimate tracks the NLP score, on a sample of the same memories.
    const sample = data.slice(0, 400);
    const nlpScores = sample.map((m) => qualityScore({ content: m.content, title: m.title, tags: m.tags }));
    const fastScores = sample.map((m) => quickQualityScore({ content: m.content, title: m.title, tags: m.tags }));
    const diffs = nlpScores.map((v, i) => Math.abs(v - fastScores[i]!));
    const agreement = {
      sample: sample.length,
      mean_abs_diff: Math.round((diffs.reduce((a, b) => a + b, 0) / diffs.length) * 1000) / 1000,
      max_abs_diff: Math.round(Math.max(...diffs) * 1000) / 1000,
      spearman: Math.round(spearman(nlpScores, fastScores) * 1000) / 1000,
    };
    const rows = [
      { measure: 'writes queued (through the memory service)', value: WRITES, unit: 'writes' },
      { measure: 'queueing rate in process (no HTTP), 32 concurrent', value: Math.round((WRITES / enqueueMs) * 1000), unit: 'writes/s' },
      { measure: 'consolidated', value: applied, unit: 'writes' },
      { measure: 'batches (one transaction each)', value: batches, unit: 'batches' },
      { measure: 'consolidation time', value: Math.round(ms), unit: 'ms' },
      { measure: 'consolidation throughput', value: perSecond, unit: 'memories/s' },
      { measure: 'CPU time of the process while consolidating', value: Math.round(cpuMs), unit: 'ms' },
      { measure: 'throughput per CPU-second (load-independent)', value: perCpuSecond, unit: 'memories/cpu-s' },
      { measure: 'superseded by a newer fact', value: superseded, unit: 'memories' },
      { measure: 'merged duplicates', value: merged, unit: 'memories' },
      { measure: 'classified high sensitivity', value: high, unit: 'memories' },
      { measure: `quality scorer (${args.quality}); fast vs nlp mean |diff|`, value: agreement.mean_abs_diff, unit: `spearman ${agreement.spearman}` },
    ];
    console.table(rows);
    const load = loadavg()[0]!;
    if (load > cpus().length) console.log(`note: load average ${load.toFixed(1)} on ${cpus().length} CPUs while measuring`);
    console.log(`target: ≥ ${TARGET} memories/s — ${perSecond >= TARGET ? 'met' : 'MISSED'} (${perSecond}/s, embeddings excluded)`);
    const result = {
      bench: 'consolidation',
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
      load_average_1m: Math.round(load * 100) / 100,
      writes: WRITES,
      tenants: TENANTS,
      update_share: UPDATES,
      embeddings: args.embed ? 'hashing embedder (256)' : 'excluded',
      quality_scorer: args.quality,
      quality_agreement: agreement,
      entities: args.entities,
      memories_per_cpu_second: perCpuSecond,
      memories_per_second: perSecond,
      target_memories_per_second: TARGET,
      target_met: perSecond >= TARGET,
      rows,
    };
    mkdirSync(path.dirname(args.json!), { recursive: true });
    writeFileSync(args.json!, JSON.stringify(result, null, 2));
    console.log(`wrote ${args.json}`);
  } finally {
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function ranks(xs: number[]): number[] {
  const order = xs.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) r[order[k]![1]] = (i + j) / 2;
    i = j + 1;
  }
  return r;
}

function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i]! - ma) * (rb[i]! - mb);
    da += (ra[i]! - ma) ** 2;
    db += (rb[i]! - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
