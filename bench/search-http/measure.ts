/**
 * Latency, throughput and result lists per search mode for one tenant: the node load generator gives
 * the result lists (and, with `--client node`, the timed figures); with `--client wrk`, wrk's own pass
 * over the same queries gives the timed figures.
 */
import { cpuMsOf, spawnServer, UNLIMITED_PLAN_LIMITS } from '../support/server.js';
import { runWrk, type WrkRequest } from '../support/wrk.js';
import type { Bench, Tenant } from './bench-server.js';
import { MODES, type RunContext } from './context.js';
import { f1, fmtLa, la, latency, type Latency } from './figures.js';
import { searchPath } from './load-generator.js';

export interface ModeRun {
  latency: Latency;
  reqPerSecond: number;
  /**
   * CPU time of the server (and, with the node client, of its threads) per timed request: what a request costs
   * without waiting for a core. 1000 / this ≈ the req/s one uncontended core would sustain.
   */
  cpuMsPerRequest: number;
  requests: number;
  errors: number;
  loadavgBefore: number[];
  loadavgAfter: number[];
}

export interface Run {
  label: string;
  tenant: string;
  size: number;
  others: string;
  modes: Record<string, ModeRun>;
  lists: Record<string, string[][]>;
}

/** Where a measurement sends its requests, and how the server's CPU time is read. */
interface Target {
  port: number;
  /** CPU ms used so far by the server and the load generator. */
  cpuMs(): number;
  suffix: string;
}

const inProcess = (b: Bench): Target => ({
  port: b.port,
  cpuMs: () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  },
  suffix: '',
});

/** The in-process run, then (with `--processes N`) the same against `tenant-memory serve --processes N`. */
export async function measure(ctx: RunContext, b: Bench, t: Tenant, others: string): Promise<[Run, ...Run[]]> {
  const { processes, logLevel } = ctx.settings;
  const runs: [Run, ...Run[]] = [await measureOn(ctx, inProcess(b), t, others)];
  if (processes > 1) {
    const cluster = await spawnServer(b.dataDir, processes, {
      NODE_ENV: 'production',
      LOG_LEVEL: logLevel,
      EMBEDDINGS_PROVIDER: 'local',
      WORKER_MODE: 'external', // nothing is queued; the bench's own server holds the data
      PLAN_LIMITS: UNLIMITED_PLAN_LIMITS,
    });
    try {
      const target: Target = {
        port: Number(new URL(cluster.url).port),
        cpuMs: () => {
          const c = process.cpuUsage();
          return (c.user + c.system) / 1000 + (cpuMsOf(cluster.child.pid) ?? NaN);
        },
        suffix: ` · ${processes} processes`,
      };
      runs.push(await measureOn(ctx, target, t, others));
    } finally {
      await cluster.stop();
    }
  }
  return runs;
}

/** wrk's requests: GET `paths` (cycled) on the target with the tenant's search key. */
function searchRequests(target: Target, t: Tenant, paths: string[]): WrkRequest {
  return { url: `http://127.0.0.1:${target.port}/`, method: 'GET', headers: { 'x-api-key': t.key!, accept: 'application/json' }, paths };
}

/** `--concurrency` wrk connections over `paths` (cycled) for `--seconds`; the server's CPU per request. */
async function wrkPass(ctx: RunContext, target: Target, t: Tenant, paths: string[], before: number[]): Promise<ModeRun> {
  const c0 = target.cpuMs();
  const r = await runWrk(searchRequests(target, t, paths), { connections: ctx.settings.concurrency, seconds: ctx.settings.wrkSeconds });
  const cpuMs = target.cpuMs() - c0;
  return {
    latency: { p50: r.p50Ms, p95: r.p95Ms, p99: r.p99Ms, mean: r.meanMs, max: r.maxMs },
    reqPerSecond: r.requests / r.seconds,
    cpuMsPerRequest: cpuMs / Math.max(1, r.requests),
    requests: r.requests,
    errors: r.statusErrors + r.socketErrors,
    loadavgBefore: before,
    loadavgAfter: la(),
  };
}

async function measureOn(ctx: RunContext, target: Target, t: Tenant, others: string): Promise<Run> {
  const { settings: s, gen } = ctx;
  const run: Run = {
    label: `${t.label} ${others}${target.suffix}`,
    tenant: t.label,
    size: t.size,
    others: `${others}${target.suffix}`,
    modes: {},
    lists: {},
  };
  if (s.client === 'wrk' && s.wrkWarmupSeconds > 0) {
    // Untimed: the warm-up queries (not the timed ones) in every mode, interleaved.
    const paths = ctx.warmupQueries.flatMap((q) => MODES.map((mode) => searchPath(q, mode)));
    await runWrk(searchRequests(target, t, paths), { connections: s.concurrency, seconds: s.wrkWarmupSeconds });
  }
  for (const mode of MODES) {
    const paths = ctx.queries.slice(0, s.requests).map((q) => searchPath(q, mode));
    const warm = ctx.warmupQueries.map((q) => searchPath(q, mode));
    const before = la();
    await gen.run(target.port, t.key!, [], warm, s.concurrency);
    const c0 = target.cpuMs();
    const timed = await gen.run(target.port, t.key!, paths, [], s.concurrency);
    const cpuMs = target.cpuMs() - c0;
    const errors = timed.status.filter((x) => x !== 200).length;
    if (errors > 0) console.log(`    ${errors} non-200 answers, first: ${String(timed.ids[timed.status.findIndex((x) => x !== 200)])}`);
    run.modes[mode] = {
      latency: latency(timed.lat),
      reqPerSecond: timed.lat.length / (timed.wallMs / 1000),
      cpuMsPerRequest: cpuMs / timed.lat.length,
      requests: timed.lat.length,
      errors,
      loadavgBefore: before,
      loadavgAfter: la(),
    };
    // The pass above gave the result lists; with wrk, the timed figures come from wrk's own pass over
    // the same queries (its C client costs far less CPU per request than the worker thread).
    if (s.client === 'wrk') run.modes[mode] = await wrkPass(ctx, target, t, paths, before);
    run.lists[mode] = timed.ids.map((x) => (Array.isArray(x) ? x : []));
    const m = run.modes[mode]!;
    console.log(
      `  ${run.label.padEnd(34)} ${mode.padEnd(13)} p50 ${f1(m.latency.p50).padStart(7)}  p95 ${f1(m.latency.p95).padStart(7)}  p99 ${f1(m.latency.p99).padStart(7)} ms  ${m.reqPerSecond.toFixed(1).padStart(6)} req/s  cpu ${f1(m.cpuMsPerRequest)} ms/req  (load avg ${fmtLa(m.loadavgAfter)})`,
    );
  }
  return run;
}
