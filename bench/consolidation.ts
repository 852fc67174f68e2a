/**
 * Consolidation throughput on the embedded profile, embeddings excluded (no embedder configured):
 * queued writes consolidated per second through the whole pipeline (injection screening, sensitivity,
 * dedupe, contradiction handling, commit with the keyword index rows), in batches of one transaction.
 *
 *   npx tsx bench/consolidation.ts [--writes 20000] [--tenants 4] [--updates 0.2] [--processes 1] [--json bench/results/consolidation.json]
 *
 * Writes are queued first (through the memory service, as the API does), then one worker drains every
 * tenant, or `--processes N` worker processes (as `tenant-memory worker` scales out) drain the tenants
 * between them, each on its own connection to the same database file. A share of the writes (`--updates`) are updates of earlier memories. Prints a table and writes
 * JSON (bench/results/ is gitignored). Target: ≥ 1,000 memories/s.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../server/config.js';
import { UNLIMITED_PLAN_LIMITS } from './support/server.js';
import { createContainer, type Services } from '../server/container.js';
import { createLogger } from '../server/logger.js';
import { createConsolidationService } from '../server/services/memories/consolidation.js';
import { HashingEmbedder } from '../adapters/embeddings/hashing.js';
import { qualityScore } from '../server/services/consolidation/quality.js';
import { inThreadWriteAnalyzer } from '../server/services/memories/in-thread-write-analyzer.js';
import type { WriteAnalysisOptions } from '../server/services/memories/write-analysis.js';
import { ThreadedWriteAnalyzer } from '../adapters/threads/write-analyzer.js';
import { quickQualityScore } from '../server/services/memories/quick-quality.js';
import { generateMemories, rng } from './memory-data.js';
import { noteIfLoaded, writeJsonResult } from './support/report.js';
import { benchArgs } from './support/args.js';

const USAGE = `Usage: npm run bench:consolidation -- [options]

Consolidation throughput on the embedded profile (embeddings excluded): queued writes consolidated per
second through the whole pipeline, by one worker or by --processes worker processes.

Options:
  --writes N         queued writes (default 20000)
  --tenants N        tenants the writes are spread over (default 4)
  --updates R        share of writes that update an earlier memory (default 0.2)
  --entities         also extract entities for the graph channel
  --embed            also embed with the hashing embedder
  --quality fast|nlp quality scorer (default fast)
  --processes N      worker processes draining the tenants (default 1)
  --threads N        analysis threads beside each consolidating thread (default 1)
  --json FILE        where the result goes (default bench/results/consolidation.json)
  --help             this text
`;

const args = benchArgs(USAGE, {
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
  processes: { type: 'string', default: '1' },
  /** Analysis threads beside each consolidating thread (CONSOLIDATION_THREADS; default 1 as the service). */
  threads: { type: 'string', default: '1' },
  /** Internal: run as one of `--processes` workers over this data directory, for these tenants. */
  'drain-dir': { type: 'string' },
  'drain-tenants': { type: 'string' },
});
const PROCESSES = Number(args.processes);
const THREADS = Number(args.threads);
const WRITES = Number(args.writes);
const TENANTS = Number(args.tenants);
const UPDATES = Number(args.updates);
const TARGET = 1000;

/** The pipeline as this issue defines it: no embedder (embeddings excluded) and, unless asked, no
 * entity extraction (the retrieval layer adds both in the container). The analysis thread is started
 * before the clock starts: a long-running worker pays its start-up once. */
async function pipeline(services: Services) {
  const analysis: WriteAnalysisOptions = {
    quality: args.quality === 'nlp' ? 'nlp' : 'fast',
    entities: args.entities!,
    offlineFacts: THREADS > 0,
  };
  const analyzer = THREADS > 0 ? new ThreadedWriteAnalyzer(analysis, THREADS) : inThreadWriteAnalyzer(analysis);
  await analyzer.analyze([
    { title: 'warm-up', content: 'Alice moved to Berlin.', tags: [], metadata: {}, agentId: null, writerSensitivity: null },
  ]);
  const consolidation = createConsolidationService({
    memories: services.ports.memories,
    queue: services.ports.writeQueue,
    clock: Date.now,
    logger: services.logger,
    embedder: args.embed ? new HashingEmbedder(256) : null,
    analyzer,
  });
  return { consolidation, close: async () => analyzer.close?.() };
}

function configFor(dataDir: string) {
  return loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    EMBEDDINGS_PROVIDER: 'hash',
    WORKER_MODE: 'external',
    PLAN_LIMITS: UNLIMITED_PLAN_LIMITS,
    NODE_ENV: 'production',
  });
}

/** Child mode: wait for "go" on stdin, drain the given tenants, print {applied, batches, cpuMs, start, end}. */
async function drainChild(dataDir: string, tenants: string[]) {
  const services = await createContainer(configFor(dataDir), createLogger('warn', new Writable({ write: (_c, _e, cb) => cb() })));
  const { consolidation, close } = await pipeline(services);
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  process.stdin.destroy();
  const cpu0 = process.cpuUsage();
  const start = Date.now();
  let applied = 0;
  let batches = 0;
  for (const tenant of tenants) {
    const res = await consolidation.drainTenant(tenant);
    applied += res.applied;
    batches += res.batches;
  }
  const end = Date.now();
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({ applied, batches, cpuMs: (cpu.user + cpu.system) / 1000, start, end })}\n`);
  await close();
  await services.close();
}

/** Parent side of `--processes N`: N children drain the tenants between them; wall time from the first start to the last end. */
async function drainInProcesses(
  dataDir: string,
  tenants: string[],
): Promise<{ applied: number; batches: number; ms: number; cpuMs: number }> {
  const groups = Array.from({ length: PROCESSES }, (_, i) => tenants.filter((_, k) => k % PROCESSES === i));
  const extra = [
    args.entities ? '--entities' : '',
    args.embed ? '--embed' : '',
    `--quality=${args.quality}`,
    `--threads=${THREADS}`,
  ].filter(Boolean);
  const children = groups.map((group) =>
    spawn(
      process.execPath,
      [
        ...process.execArgv.filter((a) => a.startsWith('--cpu-prof')),
        '--import',
        'tsx',
        path.resolve(import.meta.dirname, 'consolidation.ts'),
        `--drain-dir=${dataDir}`,
        `--drain-tenants=${group.join(',')}`,
        ...extra,
      ],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    ),
  );
  const lines = children.map((child) => {
    let buffer = '';
    const waiters: ((line: string) => void)[] = [];
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      let i: number;
      while ((i = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        waiters.shift()?.(line);
      }
    });
    return () => new Promise<string>((resolve) => waiters.push(resolve));
  });
  const ready = lines.map((next) => next());
  await Promise.all(ready);
  const results = lines.map((next) => next());
  for (const child of children) child.stdin!.end('go\n');
  const parsed = (await Promise.all(results)).map(
    (l) => JSON.parse(l) as { applied: number; batches: number; cpuMs: number; start: number; end: number },
  );
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))));
  return {
    applied: parsed.reduce((a, p) => a + p.applied, 0),
    batches: parsed.reduce((a, p) => a + p.batches, 0),
    ms: Math.max(...parsed.map((p) => p.end)) - Math.min(...parsed.map((p) => p.start)),
    cpuMs: parsed.reduce((a, p) => a + p.cpuMs, 0),
  };
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-bench-consolidation-'));
  const config = configFor(dataDir);
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

    let applied = 0;
    let batches = 0;
    let ms: number;
    let cpuMs: number;
    if (PROCESSES > 1) {
      ({ applied, batches, ms, cpuMs } = await drainInProcesses(dataDir, tenants));
    } else {
      const { consolidation, close } = await pipeline(services);
      const cpu0 = process.cpuUsage();
      const start = performance.now();
      for (const tenant of tenants) {
        const res = await consolidation.drainTenant(tenant);
        applied += res.applied;
        batches += res.batches;
      }
      ms = performance.now() - start;
      const cpu = process.cpuUsage(cpu0);
      cpuMs = (cpu.user + cpu.system) / 1000;
      await close();
    }
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
      { measure: `consolidation time (${PROCESSES} worker process${PROCESSES > 1 ? 'es' : ''})`, value: Math.round(ms), unit: 'ms' },
      { measure: 'consolidation throughput', value: perSecond, unit: 'memories/s' },
      { measure: 'CPU time of the workers while consolidating', value: Math.round(cpuMs), unit: 'ms' },
      { measure: 'throughput per CPU-second (load-independent)', value: perCpuSecond, unit: 'memories/cpu-s' },
      { measure: 'superseded by a newer fact', value: superseded, unit: 'memories' },
      { measure: 'merged duplicates', value: merged, unit: 'memories' },
      { measure: 'classified high sensitivity', value: high, unit: 'memories' },
      {
        measure: `quality scorer (${args.quality}); fast vs nlp mean |diff|`,
        value: agreement.mean_abs_diff,
        unit: `spearman ${agreement.spearman}`,
      },
    ];
    console.table(rows);
    const load = noteIfLoaded();
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
      processes: PROCESSES,
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
    writeJsonResult(args.json!, result);
    console.log(`wrote ${args.json}`);
  } finally {
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function ranks(xs: number[]): number[] {
  const order = xs.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < order.length;) {
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

const run = args['drain-dir'] ? drainChild(args['drain-dir'], (args['drain-tenants'] ?? '').split(',').filter(Boolean)) : main();
run.catch((err) => {
  console.error(err);
  process.exit(1);
});
