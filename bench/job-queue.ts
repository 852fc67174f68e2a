/**
 * Throughput and latency of the job queue on the embedded profile (Agenda 6 over libsql).
 *
 *   npx tsx bench/job-queue.ts [--jobs 5000] [--workers 2] [--concurrency 20] [--samples 300] [--json bench/results/job-queue.json]
 *
 * 1. enqueue: `jobs.now()` of N jobs, one after another (per-call latency) and 100 at a time (jobs/s).
 * 2. process: N due jobs drained by `--workers` worker queues (each on its own connection to the one
 *    file, as separate processes would), handler does nothing: jobs/s of the queue machinery itself.
 * 3. pickup latency, enqueue → handler start, one job at a time:
 *    - in-process worker (WORKER_MODE=inline: the enqueueing process notifies its own workers);
 *    - worker elsewhere (WORKER_MODE=external: found by polling, `processEvery` = 100 ms here).
 *
 * Prints a table and writes JSON (bench/results/ is gitignored).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../adapters/embedded/database.js';
import { createJobQueue, type AgendaJobQueue } from '../jobs/agenda.js';
import type { JobDefinition } from '../jobs/definition.js';
import { createLogger } from '../server/logger.js';
import { percentile } from './harness/metrics.js';
import { formatTable, writeJsonResult } from './support/report.js';
import { benchArgs } from './support/args.js';

const USAGE = `Usage: npm run bench:job-queue -- [options]

Throughput and latency of the job queue on the embedded profile (Agenda over libsql): enqueue, drain
and pickup latency with in-process and external workers.

Options:
  --jobs N           jobs enqueued and drained (default 5000)
  --workers N        worker queues draining them (default 2)
  --concurrency N    jobs each worker runs at once (default 20)
  --samples N        pickup-latency samples (default 300)
  --json FILE        where the result goes (default bench/results/job-queue.json)
  --help             this text
`;

const args = benchArgs(USAGE, {
  jobs: { type: 'string', default: '5000' },
  workers: { type: 'string', default: '2' },
  concurrency: { type: 'string', default: '20' },
  samples: { type: 'string', default: '300' },
  json: { type: 'string', default: 'bench/results/job-queue.json' },
});
const JOBS = Number(args.jobs);
const WORKERS = Number(args.workers);
const CONCURRENCY = Number(args.concurrency);
const SAMPLES = Number(args.samples);
const PROCESS_EVERY_MS = 100;

interface BenchCtx {
  done: number;
  started: Map<string, number>;
}

const noop: JobDefinition<z.ZodObject<{ i: z.ZodNumber }>, BenchCtx> = {
  name: 'bench.noop',
  payload: z.object({ i: z.number().int() }),
  concurrency: CONCURRENCY,
  async handler(_payload, ctx, job) {
    ctx.started.set(job.id, performance.now());
    ctx.done++;
  },
};

const dir = mkdtempSync(path.join(tmpdir(), 'bench-jobs-'));
const connections: EmbeddedDatabase[] = [];
const queues: AgendaJobQueue<BenchCtx>[] = [];
const logger = createLogger('silent');
const ctx: BenchCtx = { done: 0, started: new Map() };

function queue(name: string): AgendaJobQueue<BenchCtx> {
  const db = openEmbeddedDatabase(dir);
  connections.push(db);
  const q = createJobQueue<BenchCtx>(
    { profile: 'embedded', db },
    { logger, context: () => ctx, workerName: name, processEveryMs: PROCESS_EVERY_MS, maxConcurrency: CONCURRENCY },
  ).define(noop);
  queues.push(q);
  return q;
}

async function waitFor(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setTimeout(r, 5));
}

const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
interface Row {
  case: string;
  n: number;
  jobs_per_s?: number;
  p50_ms?: number;
  p95_ms?: number;
  p99_ms?: number;
}
const rows: Row[] = [];
const lat = (name: string, ms: number[], extra: Partial<Row> = {}): Row => ({
  case: name,
  n: ms.length,
  ...extra,
  p50_ms: round(percentile(ms, 50), 2),
  p95_ms: round(percentile(ms, 95), 2),
  p99_ms: round(percentile(ms, 99), 2),
});

try {
  const producer = queue('producer');
  await producer.ready();

  // 1. enqueue
  const seq: number[] = [];
  let t0 = performance.now();
  for (let i = 0; i < JOBS; i++) {
    const s = performance.now();
    await producer.now(noop, { i });
    seq.push(performance.now() - s);
  }
  rows.push(lat('enqueue, one at a time', seq, { jobs_per_s: round(JOBS / ((performance.now() - t0) / 1000), 0) }));
  await producer.cancel({ name: noop.name });

  t0 = performance.now();
  for (let i = 0; i < JOBS; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, JOBS - i) }, (_, j) => producer.now(noop, { i: i + j })));
  }
  rows.push({ case: 'enqueue, 100 at a time', n: JOBS, jobs_per_s: round(JOBS / ((performance.now() - t0) / 1000), 0) });

  // 2. process the N due jobs
  const workers = Array.from({ length: WORKERS }, (_, w) => queue(`worker-${w}`));
  ctx.done = 0;
  t0 = performance.now();
  await Promise.all(workers.map((w) => w.start()));
  await waitFor(() => ctx.done >= JOBS);
  const processMs = performance.now() - t0;
  rows.push({
    case: `process, ${WORKERS} worker queue(s) × concurrency ${CONCURRENCY}`,
    n: JOBS,
    jobs_per_s: round(JOBS / (processMs / 1000), 0),
  });
  if (ctx.done !== JOBS) throw new Error(`ran ${ctx.done} jobs for ${JOBS} enqueued`);

  // 3a. pickup latency, worker in the enqueueing process (inline)
  const inline = workers[0]!;
  const pickup = async (via: AgendaJobQueue<BenchCtx>) => {
    const out: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      // Enqueue at a random point of the poll cycle (right after a pickup would always be the worst case).
      await new Promise((r) => setTimeout(r, Math.random() * PROCESS_EVERY_MS));
      const s = performance.now();
      const job = await via.now(noop, { i });
      await waitFor(() => ctx.started.has(job.id));
      out.push(ctx.started.get(job.id)! - s);
    }
    return out;
  };
  rows.push(lat('enqueue → start, in-process worker', await pickup(inline)));
  // 3b. worker elsewhere: the producer does not run workers, so the job is found by polling.
  rows.push(lat(`enqueue → start, external worker (poll ${PROCESS_EVERY_MS} ms)`, await pickup(producer)));
} finally {
  for (const q of queues) await q.stop(5_000);
  for (const db of connections) db.close();
  rmSync(dir, { recursive: true, force: true });
}

const head = ['case', 'n', 'jobs/s', 'p50 ms', 'p95 ms', 'p99 ms'];
const table = rows.map((r) => [
  r.case,
  String(r.n),
  r.jobs_per_s?.toString() ?? '',
  r.p50_ms?.toString() ?? '',
  r.p95_ms?.toString() ?? '',
  r.p99_ms?.toString() ?? '',
]);
process.stdout.write(`job queue, embedded profile (libsql, Agenda 6), ${cpus().length} CPUs, load ${loadavg()[0]!.toFixed(2)}\n`);
process.stdout.write(`${formatTable(head, table)}\n`);

const result = {
  bench: 'job-queue',
  profile: 'embedded',
  at: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  load1: loadavg()[0],
  params: { jobs: JOBS, workers: WORKERS, concurrency: CONCURRENCY, samples: SAMPLES, process_every_ms: PROCESS_EVERY_MS },
  rows,
};
writeJsonResult(args.json!, result, { trailingNewline: true });
process.stdout.write(`wrote ${args.json}\n`);
